import PriceCore
import Synchronization

/// Sends `watch` subscribers at most one line per publish interval, always the newest. A line
/// whose state, source or transport differs from the last one sent goes out at once.
final class WatchPublisher<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private struct State {
        var lastSentAt: C.Instant?
        var lastKind: WatchStateKey?
        var pending: Snapshot<C.Instant>?
    }

    private let broadcast: @Sendable (String) -> Void
    private let clock: C
    private let interval: Duration
    private let state = Mutex(State())

    /// `broadcast` hands a line to every watcher (the socket server's).
    init(clock: C, interval: Duration, broadcast: @escaping @Sendable (String) -> Void) {
        self.broadcast = broadcast
        self.clock = clock
        self.interval = interval
    }

    private enum Decision {
        case sendNow
        /// Held as the pending line; the first one held schedules the flush.
        case held(flushAt: C.Instant?)
    }

    func publish(_ snapshot: Snapshot<C.Instant>) {
        let now = clock.now
        let kind = snapshot.stateKey
        let decision: Decision = state.withLock { state in
            let due = state.lastSentAt.map { $0.advanced(by: interval) }
            if interval == .zero || kind != state.lastKind || due.map({ $0 <= now }) ?? true {
                state.lastSentAt = now
                state.lastKind = kind
                state.pending = nil
                return .sendNow
            }
            defer { state.pending = snapshot }
            return .held(flushAt: state.pending == nil ? due : nil)
        }
        switch decision {
        case .sendNow:
            broadcast(snapshot.statusLine)
        case .held(let flushAt?):
            Task { [self] in
                // A sleep that fails (the daemon's event loop is shutting down) flushes nothing:
                // the server it would write to is gone.
                do { try await clock.sleep(until: flushAt, tolerance: nil) } catch { return }
                flush()
            }
        case .held(nil):
            break
        }
    }

    private func flush() {
        let now = clock.now
        let line: String? = state.withLock { state in
            guard let pending = state.pending else { return nil }
            state.pending = nil
            state.lastSentAt = now
            return pending.statusLine
        }
        if let line { broadcast(line) }
    }
}
