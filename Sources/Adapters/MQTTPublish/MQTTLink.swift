#if canImport(Glibc)
import Glibc
#endif
import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import PriceCore
import Synchronization

/// btcpriced's MQTT publisher for Home Assistant: one of the publisher's watchers. While
/// connected it sends each `watch` line, retained, to the currency's state topic (so at most
/// one per `BTCPRICED_PUBLISH_INTERVAL`, on change), after the discovery config and `online`;
/// its last will and a clean stop say `offline`. `run` keeps it connected, with backoff when
/// the broker is away. A broker that is down or slow never slows the price: a line is only
/// ever written to a connected socket with room, and a line that finds no room waits as "the
/// newest is due", one flag, not a queue.
public final class MQTTLink: WatcherServer {
    private struct Session {
        var channel: (any Channel)?
        /// A line found no room; the newest goes out when the socket drains.
        var due = false
        var lastSent: NIODeadline = .uptimeNanoseconds(0)
        var awaitingPing = false
        var ticker: RepeatedTask?
    }

    public let publishing: MQTTPublishing
    private let audience: WatchAudience
    private let currentLine: @Sendable () -> String
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let session = Mutex(Session())
    /// 1 while connected to the broker, and the messages handed to it.
    private let connected: Gauge
    private let published: Counter
    /// `MQTTPublishing.refresh`, as the event loop counts time.
    private static let tickPeriod = TimeAmount.seconds(MQTTPublishing.refresh.components.seconds)
    /// The pause after the n-th failed attempt in a row: 1 s, doubling to 8 s. The broker is the
    /// user's own, usually on loopback or the LAN, so a try costs it nothing, and a broker back
    /// from a restart has the state again within seconds, however long it was away.
    static func backoff(afterFailures failures: Int) -> Duration { .seconds(1 << min(max(failures - 1, 0), 3)) }

    /// `currentLine` renders the board's `watch` line now (for a new connection, a refresh,
    /// and a socket that drained); `audience` counts the link as a watcher while it is connected,
    /// so the publisher makes lines for it.
    /// `labelled`: one link of several (a daemon serving several currencies), its metrics
    /// labelled with its currency.
    public init(_ publishing: MQTTPublishing, audience: WatchAudience, currentLine: @escaping @Sendable () -> String,
                eventLoop: any EventLoop, logger: Logger, metrics: any MetricsFactory, labelled: Bool = false) {
        self.publishing = publishing
        let dimensions = labelled ? [("currency", publishing.currency)] : []
        connected = Gauge(label: "btcpriced_mqtt_connected", dimensions: dimensions, factory: metrics)
        published = Counter(label: "btcpriced_mqtt_messages_total", dimensions: dimensions, factory: metrics)
        connected.record(0)
        self.audience = audience
        self.currentLine = currentLine
        self.eventLoop = eventLoop
        self.logger = logger
    }

    // MARK: WatcherServer

    public func broadcast(_ line: String) {
        session.withLock { session in
            guard let channel = session.channel else { return }
            send(state: line, on: channel, &session)
        }
    }

    /// Not a socket watcher: the link is counted in the audience only.
    public var watcherCount: Int { 0 }

    public func shutdown() async {}

    // MARK: Keeping connected

    /// Connects, publishes, and reconnects with backoff until the task is cancelled; then says
    /// `offline` and disconnects cleanly before it returns.
    public func run(sleep: @escaping @Sendable (Duration) async throws -> Void) async {
        var failures = 0
        var lastProblem: String?
        while !Task.isCancelled {
            let channel: any Channel
            do {
                channel = try await connect()
            } catch {
                if Task.isCancelled { return }
                failures += 1
                let problem = "\(error)"
                let pause = Self.backoff(afterFailures: failures)
                if problem != lastProblem {
                    logger.warning("MQTT: cannot publish to \(publishing.host):\(publishing.port): \(problem); retrying, at most every \(Self.backoff(afterFailures: 99).humanReadable)",
                                   metadata: ["retry_in": "\(pause.humanReadable)"])
                    lastProblem = problem
                }
                do { try await sleep(pause) } catch { return }
                continue
            }
            logger.notice("MQTT: \(lastProblem == nil ? "" : "connected again; ")publishing BTC/\(publishing.currency) to \(publishing.stateTopic) on \(publishing.host):\(publishing.port), discoverable by Home Assistant under \(publishing.discoveryTopic)")
            failures = 0
            lastProblem = nil
            attach(channel)
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                self.sayGoodbye(on: channel)
            }
            detach(channel)
            guard !Task.isCancelled else { return }
            lastProblem = "the connection was lost"
            logger.warning("MQTT: the connection to \(publishing.host):\(publishing.port) was lost; reconnecting")
            do { try await sleep(Self.backoff(afterFailures: 1)) } catch { return }
        }
    }

    /// TCP, CONNECT with the last will, and the broker's CONNACK, within `answerWithin`. A stop
    /// while it waits ends the wait at once (a broker that never answers cannot hold up a stop).
    private func connect() async throws -> any Channel {
        let accepted = eventLoop.makePromise(of: Void.self), opened = eventLoop.makePromise(of: (any Channel).self)
        // Whatever way this ends, both promises end too (a second completion is ignored).
        defer {
            accepted.fail(MQTTLinkError.closedBeforeAnswer)
            opened.fail(MQTTLinkError.closedBeforeAnswer)
        }
        let events = MQTTConnectionEvents(
            pingAnswered: { [weak self] in self?.session.withLock { $0.awaitingPing = false } },
            writable: { [weak self] in self?.drained() },
            violation: { [weak self] in self?.logger.warning("MQTT: the broker sent \($0); reconnecting") })
        // ClientBootstrap sets TCP_NODELAY itself (at IPPROTO_TCP; SOL_SOCKET would be SO_DEBUG).
        let connecting = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MQTTClientHandler(accepted: accepted, events: events))
                }
            }
            .connect(host: publishing.host, port: publishing.port)
        connecting.cascade(to: opened)
        let channel: any Channel
        do {
            channel = try await withTaskCancellationHandler { try await opened.futureResult.get() } onCancel: { opened.fail(CancellationError()) }
        } catch {
            connecting.whenSuccess { $0.close(promise: nil) }
            throw error
        }
        let connect = MQTTPacket.Connect(
            clientID: "btcpriced-\(publishing.currency.lowercased())-\(getpid())", keepAliveSeconds: UInt16(MQTTPublishing.keepAlive.components.seconds),
            will: .init(topic: publishing.availabilityTopic, payload: "offline", retain: true),
            username: publishing.username, password: publishing.password)
        channel.writeAndFlush(ByteBuffer(bytes: MQTTPacket.connect(connect)), promise: nil)
        let answerWithin = 10
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(Int64(answerWithin))) {
            accepted.fail(MQTTLinkError.noAnswer(seconds: answerWithin))
        }
        defer { timeout.cancel() }
        do {
            try await withTaskCancellationHandler { try await accepted.futureResult.get() } onCancel: { accepted.fail(CancellationError()) }
            return channel
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Discovery, `online`, the current state, and a tick every `refresh` that pings the broker
    /// and sends the state again if nothing went out since.
    private func attach(_ channel: any Channel) {
        let ticker = channel.eventLoop.scheduleRepeatedTask(initialDelay: Self.tickPeriod, delay: Self.tickPeriod) { [weak self] _ in
            self?.tick(channel)
        }
        session.withLock { session in
            session = Session(channel: channel, ticker: ticker)
            write(MQTTPacket.Message(topic: publishing.discoveryTopic, payload: HomeAssistantDiscovery.config(publishing), retain: true), on: channel)
            write(MQTTPacket.Message(topic: publishing.availabilityTopic, payload: "online", retain: true), on: channel)
            send(state: currentLine(), on: channel, &session)
        }
        connected.record(1)
        audience.joined()
    }

    private func detach(_ channel: any Channel) {
        session.withLock { session in
            session.ticker?.cancel()
            session = Session()
        }
        connected.record(0)
        audience.left()
    }

    private func tick(_ channel: any Channel) {
        let silent: Bool = session.withLock { session in
            guard session.channel === channel else { return false }
            if session.awaitingPing { return true }
            session.awaitingPing = true
            channel.writeAndFlush(ByteBuffer(bytes: MQTTPacket.pingRequest), promise: nil)
            // A tick may come a little early: a state sent within the last tenth of a period counts as this period's.
            if NIODeadline.now() - session.lastSent >= .nanoseconds(Self.tickPeriod.nanoseconds / 10 * 9) {
                send(state: currentLine(), on: channel, &session)
            }
            return false
        }
        if silent {
            logger.warning("MQTT: \(publishing.host):\(publishing.port) did not answer a ping within \(MQTTPublishing.refresh.humanReadable); reconnecting")
            channel.close(promise: nil)
        }
    }

    private func drained() {
        session.withLock { session in
            guard session.due, let channel = session.channel else { return }
            send(state: currentLine(), on: channel, &session)
        }
    }

    private func send(state line: String, on channel: any Channel, _ session: inout Session) {
        guard channel.isWritable else {
            session.due = true
            return
        }
        session.due = false
        session.lastSent = .now()
        // A `watch` line ends in a newline; an MQTT message is the JSON document alone.
        let document = line.last == "\n" ? String(line.dropLast()) : line
        write(MQTTPacket.Message(topic: publishing.stateTopic, payload: document, retain: true), on: channel)
    }

    private func write(_ message: MQTTPacket.Message, on channel: any Channel) {
        published.increment()
        channel.writeAndFlush(ByteBuffer(bytes: MQTTPacket.publish(message)), promise: nil)
    }

    /// `offline`, retained, then DISCONNECT (so the broker drops the last will), then close.
    private func sayGoodbye(on channel: any Channel) {
        write(.init(topic: publishing.availabilityTopic, payload: "offline", retain: true), on: channel)
        channel.writeAndFlush(ByteBuffer(bytes: MQTTPacket.disconnect)).whenComplete { _ in channel.close(promise: nil) }
    }
}
