import Synchronization

/// A value that tests wait on without sleeping or polling: each change re-checks the waiting
/// conditions and resumes those that now hold. What changes it (a write finishing, a log line,
/// a broadcast, a cycle) is the event the test awaits. A condition that never comes true waits
/// until the test's time limit cancels the wait, so suites that wait carry `.timeLimit`.
public final class Awaitable<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID = 0
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    public init(_ value: Value) { state = Mutex(State(value: value)) }

    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and resumes every waiter whose condition now holds.
    @discardableResult
    public func update<T>(_ body: (inout Value) -> T) -> T {
        let (result, ready) = state.withLock { state -> (T, [CheckedContinuation<Void, Never>]) in
            let result = body(&state.value)
            let value = state.value
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(value) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Returns once `condition` holds: at once if it does now, else at the change that makes
    /// it. Returns `false` if the task was cancelled first (a time limit), `true` otherwise.
    @discardableResult
    public func until(_ condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || condition(state.value) { return true }
                    state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
        return state.withLock { condition($0.value) }
    }
}
