import PriceCore
import Synchronization

/// The one writer to `watch` subscribers. It is told that the board changed and sends at most
/// one line per publish interval (give or take a tenth of it), always the newest, made from the
/// board only when it is sent; a change of state, source or transport goes out at once. Lines
/// are handed on under its lock, so one can never overtake another.
public final class WatchPublisher<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private struct State {
        var lastSentAt: C.Instant?
        var lastKey: WatchStateKey?
        /// A change is waiting for the end of the interval, and its flush is scheduled.
        var held = false
    }

    private let board: PriceBoard<C>
    private let broadcast: @Sendable (String) -> Void
    private let interval: Duration
    /// Where a held line's flush runs: the watchers' event loop, so the timer, the flush and the
    /// write take one wakeup instead of a hop to the global pool and back.
    private let executor: (any TaskExecutor)?
    /// Whether anyone watches: with no watcher no line is made (a new one gets the current
    /// line when it subscribes), so a daemon nobody watches renders nothing per update.
    /// Who watches, as the listeners count them.
    private let audience: WatchAudience
    private let state = Mutex(State())
    /// How early a line may go out. Paced reads fall on the interval's grid, each a varying
    /// fraction of a millisecond late, so a read often comes a little less than an interval
    /// after the last line; held for that fraction, every line would go out through a flush
    /// of its own, a task and a wakeup a line. Lines are never closer than nine tenths of the
    /// interval.
    private var earliness: Duration { interval / 10 }

    /// `broadcast` hands a line to every watcher (the socket server's).
    public init(board: PriceBoard<C>, interval: Duration, executor: (any TaskExecutor)? = nil,
                audience: WatchAudience, broadcast: @escaping @Sendable (String) -> Void) {
        self.board = board
        self.broadcast = broadcast
        self.interval = interval
        self.executor = executor
        self.audience = audience
    }

    private var clock: C { board.clock }

    /// The board changed. With nobody watching there is nothing to send or to hold (a new
    /// watcher gets the current line when it subscribes), so no flush is ever scheduled.
    public func publish() {
        guard audience.isWatched else { return }
        let now = clock.now
        let key = board.stateKey
        let flushAt: C.Instant? = state.withLock { state in
            let due = state.lastSentAt.map { $0.advanced(by: interval) }
            if interval == .zero || key != state.lastKey || due.map({ $0 <= now.advanced(by: earliness) }) ?? true {
                send(&state, key: key, at: now)
                return nil
            }
            guard !state.held else { return nil }
            state.held = true
            return due
        }
        guard let flushAt else { return }
        Task(executorPreference: executor) { [self] in
            // A sleep that fails (the daemon's event loop is shutting down) flushes nothing:
            // the server it would write to is gone. Up to an interval late, it ends on the
            // wakeup grid with a stream's read, so the lines after it go out with the reads.
            do { try await clock.sleep(until: flushAt, tolerance: interval) } catch { return }
            flush()
        }
    }

    private func flush() {
        let now = clock.now
        state.withLock { state in
            guard state.held else { return }
            send(&state, key: board.stateKey, at: now)
        }
    }

    private func send(_ state: inout State, key: WatchStateKey, at now: C.Instant) {
        state.lastSentAt = now
        state.lastKey = key
        state.held = false
        if audience.isWatched { broadcast(board.current.statusLine) }
    }
}
