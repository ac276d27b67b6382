import ClientKit
import Foundation
import Testing
import WireProtocol

@Suite("btcctl's socket client against a swamped listener")
struct UnixSocketClientTests {
    /// A listener whose accept queue is full: connects get EAGAIN until a slot frees up.
    final class FullListener {
        let path = NSTemporaryDirectory() + "full-\(UUID().uuidString.prefix(8)).sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var fillers: [Int32] = []

        init() throws {
            try #require(UnixSocketAddress.bind(descriptor, to: path) == 0 && listen(descriptor, 0) == 0)
            while true {
                let filler = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                fillers.append(filler)
                if UnixSocketAddress.connect(filler, to: path) != 0 { break }
            }
        }

        deinit {
            (fillers + [descriptor]).forEach { close($0) }
            unlink(path)
        }
    }

    /// The first try meets the full queue; the pause between tries frees a slot (a daemon
    /// accepting its burst), and the next try connects.
    @Test func aFullAcceptQueueIsWaitedOutUntilTheDeadline() throws {
        let listener = try FullListener()
        var pauses: [UInt32] = []
        var accepted: Int32 = -1
        let client = try UnixSocketClient(path: listener.path, timeoutMilliseconds: 60_000) { microseconds in
            pauses.append(microseconds)
            if accepted < 0 { accepted = accept(listener.descriptor, nil, nil) }
        }
        defer { client.closeConnection(); close(accepted) }
        #expect(accepted >= 0, "a slot was freed during the first pause")
        #expect(pauses.first == 1000, "a short first pause: \(pauses)")
        #expect(pauses.count <= 2, "connected once a slot was free: \(pauses.count) pauses")
    }

    @Test func aListenerThatNeverAcceptsIsReportedAtTheDeadline() throws {
        let listener = try FullListener()
        #expect {
            _ = try UnixSocketClient(path: listener.path, timeoutMilliseconds: 100)
        } throws: { error in
            (error as? ClientError)?.message == "\(listener.path) is not accepting connections (btcpriced overloaded or stuck?)"
        }
    }
}
