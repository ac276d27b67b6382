import Synchronization

/// Something that happens once (the first live quote), which tasks can wait for: each returns
/// when it has happened, or when the task is cancelled.
public final class OneTimeSignal: Sendable {
    private struct State {
        var fired = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    public func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.fired || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}
