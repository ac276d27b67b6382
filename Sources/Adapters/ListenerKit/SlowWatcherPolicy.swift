/// When a `watch` client that stops reading is dropped: a pure rule over what the hub knows
/// of it, tested without sockets.
///
/// A client that stops reading costs memory twice: in the kernel (its socket buffer) and in
/// the daemon (NIO's queue of unwritten lines). Both are bounded, and such a client is dropped
/// once its stream has not drained for `watchStall`, its own queue passes `watchBacklogLimit`,
/// or all queues together pass `watchQueueLimit` and it holds more than an equal share of
/// that. A watcher within its share is never dropped for the others' backlog, so the total
/// may pass the limit by the line being sent to each such watcher.
public struct SlowWatcherPolicy: Sendable {
    /// What the hub knows of one watcher when a line is due.
    public struct Backlog: Sendable, Equatable {
        /// Bytes NIO holds for it, not yet handed to the kernel.
        public var queuedBytes: Int
        /// Whether the kernel held bytes it had not read, at the last sample.
        public var kernelUnread: Bool
        /// Since when it has not drained; nil while it keeps up.
        public var undrainedSince: Duration?

        public init(queuedBytes: Int = 0, kernelUnread: Bool = false, undrainedSince: Duration? = nil) {
            self.queuedBytes = queuedBytes
            self.kernelUnread = kernelUnread
            self.undrainedSince = undrainedSince
        }
    }

    public enum Verdict: Sendable, Equatable {
        /// Send it the line; `undrainedSince` is its backlog's start, from now on.
        case send(undrainedSince: Duration?)
        case drop
    }

    /// The kernel's unread bytes are sampled at most this often per watcher: a system call,
    /// against a stall limit in tens of seconds.
    public static let samplePeriod = Duration.seconds(1)

    public let limits: ServerLimits

    public init(limits: ServerLimits) { self.limits = limits }

    /// An equal share of the total queue limit among `watchers`.
    public func share(among watchers: Int) -> Int { limits.watchQueueLimit / max(1, watchers) }

    /// The verdict for `watcher` as a line of `lineBytes` is due at `instant`, with
    /// `totalQueued` bytes held for all watchers together.
    public func judge(_ watcher: Backlog, lineBytes: Int, totalQueued: Int, share: Int, at instant: Duration) -> Verdict {
        let undrainedSince: Duration? = !watcher.kernelUnread && watcher.queuedBytes == 0 ? nil : watcher.undrainedSince ?? instant
        let stalled = undrainedSince.map { instant - $0 >= limits.watchStall } ?? false
        // Over the total, the watchers holding more than an equal share go; those keeping up stay.
        let overTotal = totalQueued + lineBytes > limits.watchQueueLimit && watcher.queuedBytes > share
        // NIO's own verdict (isWritable) is the same high-water mark; this one needs no lookup.
        if stalled || overTotal || watcher.queuedBytes >= limits.watchBacklogLimit { return .drop }
        return .send(undrainedSince: undrainedSince)
    }

    /// When a new watcher counts as last sampled: up to a period back, by `spread` (any
    /// number that differs between watchers), so watchers that came together are not all
    /// sampled in the same broadcast, once a second, delaying the last by a thousand syscalls.
    public func firstSample(at instant: Duration, spread: UInt) -> Duration {
        instant - .milliseconds(Int64(spread % UInt(Self.samplePeriod.components.seconds * 1000)))
    }

    /// Whether a watcher last sampled at `sampledAt` is due for another sample at `instant`.
    public func sampleDue(since sampledAt: Duration, at instant: Duration) -> Bool { instant - sampledAt >= Self.samplePeriod }
}
