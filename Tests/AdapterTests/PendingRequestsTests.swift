import SocketServer
import Testing
import WireProtocol

/// The front door's framing, deadlines and turn-away, driven with bytes and instants: no socket.
@Suite("The front door's pending requests")
struct PendingRequestsTests {
    typealias Book = PendingRequests<Int32, String>

    func answered(_ next: Book.Next) -> (line: String, occupant: String)? {
        guard case .answer(let line, let occupant) = next else { return nil }
        return (String(decoding: line, as: UTF8.self), occupant)
    }

    @Test func aLineSplitOverReadsEndsAtItsNewline() {
        var book = Book()
        book.admit(7, holding: "uid 1000", until: .seconds(5))
        guard case .wait = book.received(Array("pri".utf8), from: 7) else { Issue.record("answered before the newline"); return }
        let next = answered(book.received(Array("ce\nstatus\n".utf8), from: 7))
        #expect(next?.line == "price" && next?.occupant == "uid 1000", "\(String(describing: next))")
        #expect(!book.contains(7) && book.isEmpty, "an answered connection is no longer pending")
    }

    @Test func aLineWithoutANewlineEndsAtTheLongestRequest() {
        var book = Book()
        book.admit(7, holding: "uid 1000", until: .seconds(5))
        let limit = WireProtocol.maximumRequestLength
        guard case .wait = book.received([UInt8](repeating: UInt8(ascii: "a"), count: limit - 1), from: 7) else {
            Issue.record("answered before the limit")
            return
        }
        let next = answered(book.received(Array("bcd".utf8), from: 7))
        #expect(next?.line.utf8.count == limit && next?.line.hasSuffix("ab") == true, "\(String(describing: next?.line.utf8.count)) bytes")
    }

    @Test func theEndOfInputEndsALineAndANothingIsAHangUp() {
        var book = Book()
        book.admit(7, holding: "uid 1000", until: .seconds(5))
        book.admit(8, holding: "uid 1001", until: .seconds(5))
        _ = book.received(Array("version".utf8), from: 7)
        #expect(answered(book.received([UInt8](), from: 7))?.line == "version")
        guard case .drop(let occupant) = book.received([UInt8](), from: 8) else { Issue.record("a hang-up was not dropped"); return }
        #expect(occupant == "uid 1001", "the hang-up frees its place: \(String(describing: occupant))")
    }

    @Test func aConnectionThatSendsNoLineInTimeExpiresWithItsPlace() {
        var book = Book()
        book.admit(7, holding: "uid 1000", until: .seconds(5))
        _ = book.received(Array("pri".utf8), from: 7)
        #expect(book.expire(at: .milliseconds(4_999)).isEmpty)
        let expired = book.expire(at: .seconds(5))
        #expect(expired.map(\.connection) == [7] && expired.first?.occupant == "uid 1000", "\(expired)")
        #expect(book.isEmpty)
    }

    @Test func aTurnedAwayConnectionHoldsNoPlaceIgnoresItsRequestAndDrainsBriefly() {
        var book = Book()
        book.turnAway(9, until: .milliseconds(250))
        guard case .wait = book.received(Array("price\n".utf8), from: 9) else { Issue.record("a turned-away request was answered"); return }
        let expired = book.expire(at: .milliseconds(250))
        #expect(expired.count == 1 && expired.first?.connection == 9 && expired.first?.occupant == nil, "\(expired)")

        book.turnAway(10, until: .milliseconds(500))
        guard case .drop(let occupant) = book.received([UInt8](), from: 10) else { Issue.record("a turned-away hang-up was kept"); return }
        #expect(occupant == nil && book.isEmpty)
    }

    @Test func epollWaitsUntilTheNextDeadlineAndForeverWhenNothingWaits() {
        var book = Book()
        #expect(book.waitMilliseconds(at: .seconds(1)) == -1, "an idle door is never woken")
        #expect(book.waitMilliseconds(at: .seconds(1), alsoUntil: .milliseconds(1_100)) == 101, "the listener's rest")
        book.admit(7, holding: "uid 1000", until: .milliseconds(1_500))
        book.turnAway(8, until: .milliseconds(1_250))
        #expect(book.waitMilliseconds(at: .seconds(1)) == 251, "rounded up, so the deadline has passed when it wakes")
        #expect(book.waitMilliseconds(at: .seconds(2)) == 0)
    }
}
