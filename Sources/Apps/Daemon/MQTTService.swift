import DaemonConfig
import EventLoopScheduling
import MQTTPublish
import ServiceLifecycle
import WireProtocol

/// Keeps the MQTT link connected from start to graceful shutdown, when it says `offline` and
/// disconnects before the service ends.
struct MQTTService: Service {
    let link: MQTTLink
    let clock: EventLoopClock

    func run() async throws {
        let (link, clock) = (self.link, self.clock)
        await cancelWhenGracefulShutdown {
            await link.run { try await clock.sleep(for: $0) }
        }
    }
}

extension MQTTSettings {
    /// What the link publishes for `currency` on `broker`.
    func publishing(to broker: Broker, currency: String) -> MQTTPublishing {
        MQTTPublishing(host: broker.host, port: broker.port, username: broker.username, password: password, topicRoot: topicRoot,
                       discoveryPrefix: discoveryPrefix, currency: currency, version: ProductVersion.current)
    }
}
