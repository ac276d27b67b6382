import NIOConcurrencyHelpers

/// Tasks waiting for a condition on the fake exchange, re-checked after each change it records
/// (a request, a stream opened or closed, a refusal, a ping), so a test awaits the event
/// itself rather than polling. Conditions are checked under this lock, never under the
/// exchange's own state lock, so a change and a new waiter cannot miss each other.
final class ChangeWaiters: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable () -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let waiters = NIOLockedValueBox<[Waiter]>([])
    private let ids = NIOLockedValueBox((next: 0, cancelled: Set<Int>()))

    func changed() {
        let ready = waiters.withLockedValue { waiters -> [CheckedContinuation<Void, Never>] in
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard waiter.condition() else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns when `condition` holds, or when the task is cancelled (a test's time limit).
    func until(_ condition: @escaping @Sendable () -> Bool) async {
        let id = ids.withLockedValue { ids in
            defer { ids.next += 1 }
            return ids.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = waiters.withLockedValue { waiters -> Bool in
                    if ids.withLockedValue({ $0.cancelled.remove(id) != nil }) || condition() { return true }
                    waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = waiters.withLockedValue { waiters -> Waiter? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else {
                    ids.withLockedValue { _ = $0.cancelled.insert(id) }
                    return nil
                }
                return waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
