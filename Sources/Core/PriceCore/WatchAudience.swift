import Synchronization

/// How many watch the price (the socket's `watch`, the HTTP event streams), as one number the
/// listeners move when a watcher joins or leaves and every reader loads without a lock: the
/// stream's reader at each read, the publisher at each change. Nobody asks the listeners.
public final class WatchAudience: Sendable {
    private let watchers = Atomic<Int>(0)

    public init() {}

    public func joined() { watchers.add(1, ordering: .relaxed) }

    public func left(_ count: Int = 1) { watchers.subtract(count, ordering: .relaxed) }

    public var count: Int { watchers.load(ordering: .relaxed) }

    public var isWatched: Bool { count > 0 }
}
