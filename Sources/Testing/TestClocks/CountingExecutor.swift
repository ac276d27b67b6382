import Dispatch
import Synchronization

/// A task executor that counts its jobs: a test sees whether work was asked to run where the
/// daemon's event loop would have run it. By default it runs each job at once on the
/// enqueuing thread, so a task runs within its creation until it first suspends. Given a
/// queue, it runs them there instead, as a real executor does: running a job inline is wrong
/// when the runtime enqueues it while holding a task's status lock (a task group cancelling
/// its children resumes their continuations there), and a child that then finishes inline
/// destroys its task under that lock.
public final class CountingExecutor: TaskExecutor {
    private let count = Mutex(0)
    private let queue: DispatchQueue?

    public init(runningOn queue: DispatchQueue? = nil) {
        self.queue = queue
    }

    /// How many jobs were enqueued here so far.
    public var jobs: Int { count.withLock { $0 } }

    public func enqueue(_ job: consuming ExecutorJob) {
        count.withLock { $0 += 1 }
        guard let queue else {
            job.runSynchronously(on: asUnownedTaskExecutor())
            return
        }
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
