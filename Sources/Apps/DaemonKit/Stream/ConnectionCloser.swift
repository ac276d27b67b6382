import Synchronization

/// Closes one connection among the supervisor's children on request. A task group cannot
/// cancel one child, so each connection's child races its connection against this signal,
/// and whichever ends first cancels the other: the connection closes its socket at once.
final class ConnectionCloser: Sendable {
    private struct State {
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Any thread; the connection closes even if it has not started yet.
    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Runs `connection` until it ends, or until `close()`, which ends it as `closed`.
    func run<Ending: Sendable>(_ connection: @escaping @Sendable () async -> Ending, closed: Ending) async -> Ending {
        await withTaskGroup(of: Ending?.self) { race in
            race.addTask { await connection() }
            race.addTask {
                await self.untilClosed()
                return nil
            }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first ?? closed
        }
    }

    private func untilClosed() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let closedAlready = state.withLock { state in
                    if state.closed { return true }
                    state.waiter = continuation
                    return false
                }
                if closedAlready { continuation.resume() }
            }
        } onCancel: {
            close()
        }
    }
}
