import HTTPAPI
import NIOCore
import Testing

/// When an HTTP connection closes, on deadlines the test chooses: the idle rule and the drain at
/// stop, with no socket and no clock of its own.
@Suite("HTTP connection lifecycle on a manual clock")
struct HTTPConnectionLifecycleTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    let timeout = TimeAmount.seconds(5)

    func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    @Test func aConnectionThatSendsNothingClosesAtTheTimeoutAndNotBefore() {
        let lifecycle = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        #expect(lifecycle.firstCheck == at(5))
        #expect(lifecycle.check(at: at(4)) == .checkAgain(at: at(5)), "early: look again at the deadline")
        #expect(lifecycle.check(at: at(5)) == .close)
    }

    @Test func anAnswerRestartsTheIdleClockAndAnAnswerUnderWayIsNeverIdle() {
        var lifecycle = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        lifecycle.requestArrived()
        #expect(lifecycle.check(at: at(5)) == .checkAgain(at: at(10)), "while answering: \(lifecycle.phase)")
        let staysOpen = lifecycle.answered(keepAlive: true, at: at(6))
        #expect(staysOpen)
        #expect(lifecycle.check(at: at(10)) == .checkAgain(at: at(11)), "the timer set for the start looks again from the answer")
        #expect(lifecycle.check(at: at(11)) == .close)
        let closing = lifecycle.answered(keepAlive: false, at: at(7))
        #expect(!closing, "Connection: close ends it")
    }

    @Test func anEventStreamIsNeverIdle() {
        var lifecycle = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        lifecycle.requestArrived()
        lifecycle.startedStreaming()
        #expect(lifecycle.check(at: at(3600)) == .quiet)
    }

    /// At stop: a waiting connection closes now, one being answered gets its answer with
    /// `Connection: close`, and a stream gets its last event.
    @Test func eachPhaseDrainsAsItMay() {
        var waiting = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        let idle = waiting.drain()
        #expect(idle == .closeNow)

        var answering = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        answering.requestArrived()
        let busy = answering.drain()
        #expect(busy == .closeAfterAnswer)
        let keptOpen = answering.answered(keepAlive: true, at: at(1))
        #expect(!keptOpen, "a keep-alive request is answered, then the connection closes")
        #expect(answering.draining)

        var streaming = HTTPConnectionLifecycle(requestTimeout: timeout, openedAt: start)
        streaming.requestArrived()
        streaming.startedStreaming()
        let stream = streaming.drain()
        #expect(stream == .lastEvent)
    }
}
