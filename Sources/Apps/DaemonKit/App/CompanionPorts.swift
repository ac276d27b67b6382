import CoreMetrics
import Logging
import PriceCore

extension DaemonPorts {
    /// These ports as a companion daemon uses them: one serving a currency beside the primary
    /// (`BTCPRICED_CURRENCIES`). The primary alone speaks to systemd (READY=1, STATUS=, the
    /// watchdog), listens and counts the stream connections in the metrics; a companion answers
    /// through the primary's listeners (`CurrencyReplies`), streams its pair on the connections the
    /// currencies share (`streams`, given by the root) and logs with its currency named.
    public func companion(serving currency: String, streams: [StreamVenue]) -> DaemonPorts {
        var ports = self
        ports.serve = { _ in NoWatchers() }
        ports.notifier = NoServiceManager()
        ports.watchdogInterval = nil
        ports.audience = WatchAudience()
        ports.streams = streams
        ports.streamMetrics = NOOPMetricsHandler.instance
        ports.onReady = { _ in }
        ports.logger[metadataKey: "currency"] = "\(currency)"
        return ports
    }
}

/// A companion's watchers: none of its own (the primary's listeners serve every currency).
public struct NoWatchers: WatcherServer {
    public init() {}
    public func broadcast(_ line: String) {}
    public var watcherCount: Int { 0 }
    public func shutdown() async {}
}

/// A companion's service manager: none; the primary's status stands for the daemon.
struct NoServiceManager: HealthNotifier {
    var isActive: Bool { false }
    func status(_ text: String) {}
    func watchdog() {}
    func ready(status: String?) {}
    func reloading(status: String?) {}
    func stopping(status: String?) {}
}
