import Synchronization

/// A task executor that runs each job at once on the enqueuing thread and counts them: a test
/// sees whether work was asked to run where the daemon's event loop would have run it.
public final class CountingExecutor: TaskExecutor {
    private let count = Mutex(0)

    public init() {}

    /// How many jobs were enqueued here so far.
    public var jobs: Int { count.withLock { $0 } }

    public func enqueue(_ job: consuming ExecutorJob) {
        count.withLock { $0 += 1 }
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
