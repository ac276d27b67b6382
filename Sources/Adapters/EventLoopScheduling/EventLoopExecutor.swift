import NIOCore

/// Runs a task's jobs on one NIO event loop. A stream's reader then runs on the loop that
/// reads its socket (and, in the daemon, writes to the watchers): a trade reaches the
/// watchers without waking another thread, which is most of the tail latency on a busy host.
public final class EventLoopExecutor: TaskExecutor, Sendable {
    let loop: any EventLoop

    public init(_ loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
