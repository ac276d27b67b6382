import Synchronization

/// A task executor that holds every job until the test runs them: after `runUntilIdle()`, the
/// work started on it has gone as far as it can without another clock or event, so a test can
/// check that nothing happened without waiting for it not to happen.
public final class ManualExecutor: TaskExecutor {
    private let queue = Mutex<[UnownedJob]>([])

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.append(job) }
    }

    /// Runs the held jobs, and those they enqueue, on this thread until none is left; returns
    /// how many ran.
    @discardableResult
    public func runUntilIdle() -> Int {
        var ran = 0
        while let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
            ran += 1
        }
        return ran
    }
}
