import NIOCore
import PriceCore
import ListenerKit
import Synchronization

/// `GET /api/v1/events`: each line `watch` would send, as a Server-Sent Event with an `id:`,
/// to every event stream, through the same fan-out and slow-client rules as the socket's
/// `watch` (`WatchHub`). While streams are open, a comment every 15 s keeps proxies from
/// closing a quiet one; with none open nothing is scheduled, so an idle listener costs no
/// wakeup.
public final class EventStreams: WatcherServer {
    /// How long a client waits before it reconnects, sent first (`retry:`).
    public static let retryMilliseconds = 2000
    public static let keepAlivePeriod = TimeAmount.seconds(15)

    private let hub: WatchHub
    private let loop: any EventLoop
    private struct State {
        /// The last event's id; each broadcast takes the next.
        var lastID: UInt64 = 0
        var keepAlive: RepeatedTask?
    }
    private let state = Mutex(State())

    init(hub: WatchHub, loop: any EventLoop) {
        self.hub = hub
        self.loop = loop
    }

    /// One event: `id: 7`, then the line as `data:` (a status line is one JSON line).
    static func event(id: UInt64, line: some StringProtocol) -> String {
        var text = "id: \(id)\n"
        for part in line.split(separator: "\n", omittingEmptySubsequences: false).dropLast(line.hasSuffix("\n") ? 1 : 0) {
            text += "data: " + part + "\n"
        }
        return text + "\n"
    }

    /// Registers `channel`, a stream of `topic`'s lines whose response head is `head`, and sends
    /// it the head, the retry hint and the current lines as its first events, in one step on
    /// its loop so no event can fall between. False once the server is shutting down.
    func join(_ channel: any Channel, head: String, firstLines: [String], topic: WatchTopic = .primary) -> Bool {
        let id = state.withLock { $0.lastID }
        let first = firstLines.map { Self.event(id: id, line: $0) }.joined()
        let joined = hub.add(channel, firstLine: head + "retry: \(Self.retryMilliseconds)\n\n" + first, topic: topic)
        if joined { keepAliveWhileStreaming() }
        return joined
    }

    func leave(_ channel: any Channel) { hub.remove(channel) }

    public func broadcast(_ line: String) { broadcast(line, of: nil) }

    /// One line of `currency` (nil: the primary currency), to the streams that follow it.
    public func broadcast(_ line: String, of currency: String?) {
        // Nobody streams: no id, no frame, nothing to hand on.
        guard hub.count > 0 else { return }
        let frame = state.withLock { state in
            state.lastID += 1
            return Self.event(id: state.lastID, line: line)
        }
        hub.broadcast(frame, of: currency, on: loop)
    }

    /// The streams as another currency's daemon publishes to them: its lines, to those that
    /// follow it; the primary's daemon closes them.
    public func of(_ currency: String) -> any WatcherServer { CurrencyEvents(events: self, currency: currency) }

    public var watcherCount: Int { hub.count }

    /// The last event every stream gets as the listener stops, so a client (the dashboard) can
    /// tell a daemon stopping from a network that failed; EventSource then reconnects after `retry`.
    static let lastEvent = "event: stopping\ndata: {\"reason\":\"btcpriced is stopping\"}\n\n"

    /// Each stream gets `lastEvent`, then every stream ends.
    public func shutdown() async {
        state.withLock { $0.keepAlive?.cancel() }
        if hub.count > 0 { try? await hub.broadcast(Self.lastEvent, on: loop).get() }
        await hub.closeAll()
    }

    /// Starts the keep-alive comments if they are not running; they stop themselves once the
    /// last stream has gone.
    private func keepAliveWhileStreaming() {
        state.withLock { state in
            guard state.keepAlive == nil else { return }
            state.keepAlive = loop.scheduleRepeatedTask(initialDelay: Self.keepAlivePeriod, delay: Self.keepAlivePeriod) { [weak self] task in
                guard let self else { return task.cancel() }
                let stop = self.state.withLock { state -> Bool in
                    guard self.hub.count == 0 else { return false }
                    state.keepAlive = nil
                    return true
                }
                if stop { task.cancel() } else { self.hub.broadcast(": keep-alive\n\n", on: self.loop) }
            }
        }
    }
}

/// Another currency's lines on the event streams (`EventStreams.of`).
private struct CurrencyEvents: WatcherServer {
    let events: EventStreams
    let currency: String

    func broadcast(_ line: String) { events.broadcast(line, of: currency) }
    var watcherCount: Int { events.watcherCount }
    func shutdown() async {}
}
