import PriceCore
import SocketServer
import Synchronization

/// Sends `watch` subscribers at most one line per publish interval, always the newest. A line
/// whose state, source or transport differs from the last one sent goes out at once.
final class WatchPublisher<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private struct State {
        var lastSentAt: C.Instant?
        var lastKind: String?
        var pending: Snapshot<C.Instant>?
    }

    private let server: QuoteServer
    private let clock: C
    private let interval: Duration
    private let state = Mutex(State())

    init(server: QuoteServer, clock: C, interval: Duration) {
        self.server = server
        self.clock = clock
        self.interval = interval
    }

    func publish(_ snapshot: Snapshot<C.Instant>) {
        let now = clock.now
        let kind = "\(snapshot.status.kind)|\(snapshot.quote?.source.rawValue ?? "")|\(snapshot.rendered.tail)"
        let flushAt: C.Instant? = state.withLock { state in
            let due = state.lastSentAt.map { $0.advanced(by: interval) }
            if interval == .zero || kind != state.lastKind || due.map({ $0 <= now }) ?? true {
                state.lastSentAt = now
                state.lastKind = kind
                state.pending = nil
                return nil
            }
            defer { state.pending = snapshot }
            return state.pending == nil ? due : nil
        }
        guard let flushAt else {
            if state.withLock({ $0.lastSentAt == now && $0.pending == nil }) { server.broadcast(snapshot.statusLine) }
            return
        }
        Task { [self] in
            try? await clock.sleep(until: flushAt, tolerance: nil)
            flush()
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
        if let line { server.broadcast(line) }
    }
}
