import TestClocks
import PriceCore

/// Blocking work run inline on the caller's task, counted, so a test awaits the writes
/// themselves (`started(_:)`, `finished(_:)`) instead of polling the store. With `gated`, each
/// body waits for a `release()` first, as a stuck disk would: the writer's task is suspended,
/// and nothing else is held up.
public final class TestWork: BlockingWork {
    public struct Counts: Sendable {
        public var started = 0
        public var finished = 0
        public var permits = 0
        /// Bodies past the gate and not finished, and the most there ever were at once.
        public var running = 0
        public var mostAtOnce = 0
    }

    public let counts = Awaitable(Counts())
    private let gated: Bool

    public init(gated: Bool = false) { self.gated = gated }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let ticket = counts.update { counts in
            counts.started += 1
            return counts.started
        }
        if gated {
            await counts.until { $0.permits >= ticket }
        }
        counts.update { counts in
            counts.running += 1
            counts.mostAtOnce = max(counts.mostAtOnce, counts.running)
        }
        defer {
            counts.update { counts in
                counts.running -= 1
                counts.finished += 1
            }
        }
        return try body()
    }

    /// Lets the next gated body run.
    public func release() { counts.update { $0.permits += 1 } }

    /// Returns once `count` bodies have started (a gated one may still be waiting).
    public func started(_ count: Int) async { await counts.until { $0.started >= count } }

    /// Returns once `count` bodies have finished, thrown or returned.
    public func finished(_ count: Int) async { await counts.until { $0.finished >= count } }
}
