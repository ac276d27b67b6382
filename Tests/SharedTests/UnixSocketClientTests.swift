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

    @Test func aFullAcceptQueueIsWaitedOutUntilTheDeadline() throws {
        let listener = try FullListener()
        let descriptor = listener.descriptor
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { _ = accept(descriptor, nil, nil) }
        let client = try UnixSocketClient(path: listener.path, timeoutMilliseconds: 3000)
        client.closeConnection()
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
