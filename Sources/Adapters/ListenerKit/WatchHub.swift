import NIOCore
import PriceCore
import Synchronization

/// The fan-out of new lines to streaming connections (the socket's `watch`, the HTTP event
/// stream): the registry says who watches, the slow-watcher policy who is dropped, and the
/// writer sends the rest. A line is sent as it is, so whatever framing the stream needs is in it.
public final class WatchHub: Sendable {
    private let registry: WatchRegistry
    private let writer: WatchWriter
    private let policy: SlowWatcherPolicy
    /// Broadcasts handed to a loop's queue and not yet served there.
    private let inFlight = Atomic<Int>(0)
    private let counters: WatchCounters
    private let now: @Sendable () -> Duration
    /// Told when `count` or `queuedBytes` reaching zero changed, for whoever waits on them.
    private let countsChanged: @Sendable () -> Void
    /// Every listener's watchers together, as the stream's reader and the publisher read them:
    /// the primary currency's, and each other currency's by its code.
    private let audience: WatchAudience
    private let currencyAudiences: [String: WatchAudience]

    public init(limits: ServerLimits, counters: WatchCounters, now: @escaping @Sendable () -> Duration, audience: WatchAudience = WatchAudience(),
                currencyAudiences: [String: WatchAudience] = [:], countsChanged: @escaping @Sendable () -> Void = {}) {
        self.audience = audience
        self.currencyAudiences = currencyAudiences
        registry = WatchRegistry(limits: limits, counters: counters)
        writer = WatchWriter(drained: countsChanged)
        self.countsChanged = countsChanged
        policy = SlowWatcherPolicy(limits: limits)
        self.counters = counters
        self.now = now
    }

    /// Registers a watcher of `topic`'s lines and sends it `firstLine`. Returns false once the
    /// hub is closed, so late watchers are not left dangling. Called on the channel's event loop.
    public func add(_ channel: any Channel, firstLine: String, topic: WatchTopic = .primary) -> Bool {
        defer { countsChanged() }
        let added = registry.add(channel, topic: topic) { stream in writer.write(ByteBuffer(string: firstLine), to: stream) }
        if added { audiences(of: topic).forEach { $0.joined() } }
        return added
    }

    /// The audiences a watcher of `topic` counts in: its currency's publisher makes lines for it.
    private func audiences(of topic: WatchTopic) -> [WatchAudience] {
        switch topic {
        case .primary: [audience]
        case .currency(let code): currencyAudiences[code].map { [$0] } ?? []
        case .every: [audience] + currencyAudiences.values
        }
    }

    /// Called on the channel's event loop when it closes.
    public func remove(_ channel: any Channel) {
        guard let stream = registry.remove(channel) else { return }
        audiences(of: stream.topic).forEach { $0.left() }
        writer.forget(stream)
        countsChanged()
    }

    public var count: Int { registry.count }

    /// Bytes waiting in the daemon for all watchers, as of each watcher's last broadcast.
    public var queuedBytes: Int { writer.queuedBytes }

    /// Sends one line of `currency` (nil: the primary currency) to every watcher that follows
    /// it, from one shared buffer, with one task per event loop. The future completes once
    /// every watcher has been served or dropped.
    @discardableResult
    public func broadcast(_ line: String, of currency: String? = nil, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        // Once closed, the loop may be gone too, and a promise made on it would never complete.
        guard !registry.isClosed else { return eventLoop.makeSucceededVoidFuture() }
        let buffer = ByteBuffer(string: line)
        let instant = now()
        let (byLoop, count) = registry.grouped()
        let share = policy.share(among: count)
        let steps = byLoop.map { group in
            let loop = group[0].channel.eventLoop
            let serve: @Sendable () -> EventLoopFuture<Void> = {
                for stream in group where stream.topic.follows(currency) { self.deliver(buffer, to: stream, at: instant, share: share) }
                return loop.makeSucceededVoidFuture()
            }
            // A streamed trade is read on the watchers' loop: serve them now, not a task later,
            // unless an earlier line still waits in the loop's queue and would be overtaken.
            if loop.inEventLoop && inFlight.load(ordering: .acquiring) == 0 { return serve() }
            inFlight.add(1, ordering: .relaxed)
            return loop.flatSubmit {
                self.inFlight.subtract(1, ordering: .releasing)
                return serve()
            }
        }
        return EventLoopFuture.andAllComplete(steps, on: eventLoop)
    }

    /// Runs on the watcher's event loop, so its stream state needs no lock.
    private func deliver(_ buffer: ByteBuffer, to stream: WatchStream, at instant: Duration, share: Int) {
        if stream.kernelSampledAt == nil {
            stream.kernelSampledAt = policy.firstSample(at: instant, spread: UInt(bitPattern: ObjectIdentifier(stream).hashValue))
        }
        if let sampledAt = stream.kernelSampledAt, policy.sampleDue(since: sampledAt, at: instant) {
            stream.kernelSampledAt = instant
            stream.kernelUnread = stream.kernelQueuedBytes() > 0
        }
        if stream.mayHoldBytes { writer.refreshQueuedBytes(of: stream) }
        switch policy.judge(stream.backlog, lineBytes: buffer.readableBytes, totalQueued: writer.queuedBytes, share: share, at: instant) {
        case .drop:
            counters.slowDropped.increment()
            stream.channel.close(promise: nil)
        case .send(let undrainedSince):
            stream.undrainedSince = undrainedSince
            writer.write(buffer, to: stream)
        }
    }

    /// Ends every stream; used at shutdown.
    public func closeAll() async {
        let streams = registry.closeAll()
        for stream in streams {
            audiences(of: stream.topic).forEach { $0.left() }
            try? await stream.channel.close()
            // On the loop, where a broadcast already under way may still write to it.
            try? await stream.channel.eventLoop.submit { stream.closeDescriptor() }.get()
        }
    }
}
