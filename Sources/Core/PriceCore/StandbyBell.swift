import Synchronization

/// Wakes the fetch loop from a standby rest when whatever carried the quotes stops early (a
/// stream connection ended), so polling takes over at once rather than at the end of the rest.
/// One waiter at a time; a ring with nobody resting is kept for the next rest, which then
/// returns at once (one extra look at the stream, never a missed hand-over).
public final class StandbyBell: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var rung = false
    }

    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Sleeps on `clock` until `deadline` (or up to `tolerance` later), or until the bell rings,
    /// whichever comes first.
    public func rest<C: Clock>(until deadline: C.Instant, tolerance: Duration? = nil, on clock: C) async
        where C.Duration == Duration, C.Instant: Sendable {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline, tolerance: tolerance) }
            group.addTask { await self.rung() }
            await group.next()
            group.cancelAll()
        }
    }

    private func rung() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock: a cancellation that came first is seen here, one that
                // comes later finds the waiter stored.
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in defer { state.waiter = nil }; return state.waiter }?.resume()
        }
    }
}
