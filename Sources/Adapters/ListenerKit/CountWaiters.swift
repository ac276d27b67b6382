/// Whoever waits for a server's counts to change, kept inside the lock that guards the counts:
/// a change costs a branch while nobody waits, and a waiter that read the counts just before a
/// change still sees it, because the change moved the version it read with them.
struct CountWaiters {
    typealias Waiter = CheckedContinuation<Void, Never>

    private(set) var version = 0
    private var waiting: [Waiter] = []

    /// Records a change; returns the waiters to resume once the lock is released.
    mutating func changed() -> [Waiter] {
        version &+= 1
        guard !waiting.isEmpty else { return [] }
        defer { waiting = [] }
        return waiting
    }

    /// Parks `waiter` until the next change, unless one came since `seen`: then it returns
    /// false, and the caller resumes it at once.
    mutating func park(_ waiter: Waiter, since seen: Int) -> Bool {
        guard version == seen else { return false }
        waiting.append(waiter)
        return true
    }
}
