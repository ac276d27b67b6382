// The floor under a paced stream: one SwiftNIO event loop, as the daemon runs, woken every
// INTERVAL_MS by a scheduled callback (as ReadPacer's reads are) that does nothing else.
// scripts/stream-bench b measures it beside the streaming and the polling daemon, so the
// daemon's cost per read can be told from what any process on this stack pays to wake.
// Usage: loop-floor INTERVAL_MS
import Glibc
import NIOCore
import NIOPosix

/// Reschedules itself on its loop, and nothing more.
final class Waker: NIOScheduledCallbackHandler, Sendable {
    let loop: any EventLoop
    let interval: TimeAmount

    init(loop: any EventLoop, interval: TimeAmount) {
        self.loop = loop
        self.interval = interval
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        _ = try? loop.scheduleCallback(in: interval, handler: self)
    }
}

guard CommandLine.arguments.count == 2, let milliseconds = Int64(CommandLine.arguments[1]), milliseconds > 0 else {
    print("usage: loop-floor INTERVAL_MS")
    exit(64)
}
let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1).next()
let waker = Waker(loop: loop, interval: .milliseconds(milliseconds))
_ = try loop.submit { try loop.scheduleCallback(in: .milliseconds(milliseconds), handler: waker) }.wait()
while true { pause() }
