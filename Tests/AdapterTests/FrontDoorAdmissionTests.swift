import Glibc
import Logging
import ListenerKit
import PriceCore
import SocketServer
import Testing
import WireProtocol

/// The front door's way in: the admission decision with no socket (`PendingRequests.enter`), and
/// the acceptor on a real listening socket (`SocketAcceptor`: accept4 and SO_PEERCRED).
@Suite("The front door's admission and acceptor")
struct FrontDoorAdmissionTests {
    typealias Book = PendingRequests<Int32, UserOccupant>

    static func budget(perUser: Int) -> UserBudget {
        UserBudget(limits: ServerLimits(maximumConnections: 8, connectionsPerUser: perUser, watchersPerUser: 1), wording: .socket,
                   logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, now: { .zero })
    }

    @Test func aPeerIsAdmittedWithinItsShareAndTurnedAwayBeyondItWithTheReason() {
        var book = Book()
        let budget = Self.budget(perUser: 2)
        #expect(book.enter(1, peer: 1000, budget: budget, at: .seconds(1), requestTimeout: .seconds(5)) == .admitted)
        #expect(book.enter(2, peer: 1000, budget: budget, at: .seconds(1), requestTimeout: .seconds(5)) == .admitted)
        let third = book.enter(3, peer: 1000, budget: budget, at: .seconds(1), requestTimeout: .seconds(5))
        guard case .turnedAway(let line, let refusal) = third else { Issue.record("a third connection of uid 1000 got in: \(third)"); return }
        #expect(refusal == .userFull(party: 1000, limit: 2), "\(refusal)")
        #expect(line.contains(#""error":"busy""#) && line.contains("uid 1000") && line.hasSuffix("\n"), "\(line)")
        #expect(book.enter(4, peer: 1001, budget: budget, at: .seconds(1), requestTimeout: .seconds(5)) == .admitted,
                "another user still gets in")

        // The turned-away one drains, holding no place; the admitted ones have their request timeout.
        let drained = book.expire(at: .seconds(1) + Book.drainTime)
        #expect(drained.map(\.connection) == [3] && drained.first?.occupant == nil, "\(drained.map(\.connection))")
        let timedOut = book.expire(at: .seconds(6))
        #expect(Set(timedOut.map(\.connection)) == [1, 2, 4], "\(timedOut.map(\.connection))")

        // Leaving frees the place: uid 1000 gets in again.
        for entry in timedOut { entry.occupant?.leave() }
        #expect(book.enter(5, peer: 1000, budget: budget, at: .seconds(7), requestTimeout: .seconds(5)) == .admitted)
    }

    @Test func aPeerTheKernelCouldNotNameIsTurnedAway() {
        var book = Book()
        let entry = book.enter(1, peer: nil, budget: Self.budget(perUser: 2), at: .zero, requestTimeout: .seconds(5))
        guard case .turnedAway(let line, let refusal) = entry else { Issue.record("an unknown peer got in: \(entry)"); return }
        #expect(refusal == .unknownPeer && line.contains("could not tell which user"), "\(refusal) \(line)")
    }

    @Test func theSocketAcceptorNamesThePeerAndSaysWhenNoneWaits() throws {
        let path = "/tmp/btcpriced-acceptor-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        defer { unlink(path) }
        let listener = try unixSocket(listening: path)
        defer { close(listener) }
        let acceptor = SocketAcceptor(listener: listener)
        #expect(acceptor.next() == .drained, "nothing connected yet")

        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_un(path: path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")

        let accepted = acceptor.next()
        guard case .connection(let descriptor, let peer) = accepted else { Issue.record("no connection accepted: \(accepted)"); return }
        defer { close(descriptor) }
        #expect(peer == getuid(), "SO_PEERCRED's uid \(String(describing: peer)), ours \(getuid())")
        #expect(fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0 && fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0,
                "accepted non-blocking and close-on-exec")
        #expect(acceptor.next() == .drained, "one connection, one accept")
    }

    /// A non-blocking Unix listener at `path`.
    func unixSocket(listening path: String) throws -> Int32 {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un(path: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 8) == 0, "bind/listen \(path): \(String(cString: strerror(errno)))")
        return listener
    }
}

extension sockaddr_un {
    init(path: String) {
        self.init()
        sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
    }
}
