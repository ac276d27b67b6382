import DaemonKit
import DaemonKitTesting
import PriceCore
import Testing
import TestClocks

@Suite("Price board: one snapshot per change, rendered once")
struct PriceBoardTests {
    @Test func aRepeatedFailureMakesNoNewSnapshotButAQuoteDoes() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        #expect(intake.poll(nil, failureSummary: "binance: timeout"))
        let failing = board.current
        #expect(!intake.poll(nil, failureSummary: "binance: timeout"),
                "nothing changed: watchers hear nothing")
        #expect(board.current === failing, "and no snapshot is made")
        #expect(intake.poll(quote("114459.8")))
        let snapshot = board.current
        #expect(snapshot.status.kind == .fresh)
        #expect(snapshot.statusLine.contains(#""price":"114459.8""#) && snapshot.statusLine.contains(#""age":0.000,"state":"fresh""#))
        #expect(snapshot.priceLine == "114459.8\n")
    }

    @Test func requestsSpliceTheAgeOnTheInjectedClock() throws {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(10))
        let intake = makeIntake(board)
        _ = intake.poll(quote("114459.8"))
        let made = board.current
        clock.advance(by: .milliseconds(3250))
        wallClock.advance(milliseconds: 3250)
        #expect(board.statusReply().contains(#""age":3.250,"state":"fresh","stale":false"#))
        #expect(board.current === made, "a request makes no snapshot")
        clock.advance(by: .seconds(7))
        #expect(board.statusReply().contains(#""age":10.250,"state":"stale","stale":true"#))
        #expect(board.priceReply() == "114459.8\n", "a stale price is still served; the status says it is stale")
        #expect(board.statusSummary().kind == .stale)
        #expect(board.current.statusLine.contains(#""state":"fresh""#), "the snapshot's own line is as of when it was made")
        #expect(intake.timePassed().watchersSee, "fresh to stale is a change of state")
        #expect(!intake.timePassed().watchersSee, "once")
        let republished = board.current
        #expect(republished.statusLine.contains(#""state":"stale""#) && republished !== made)
    }

    @Test func tradesMakeNoSnapshotUntilOneIsAskedFor() throws {
        let (board, clock, _) = makeBoard()
        let intake = makeIntake(board)
        intake.stream(quote("100.1"))
        let first = board.current
        #expect(board.current === first, "asking twice makes one snapshot")
        for cents in 11...49 {
            clock.advance(by: .milliseconds(20))
            #expect(intake.stream(quote("100.\(cents)")))
        }
        #expect(board.stateKey == first.stateKey, "39 more trades: the same state for watchers")
        let latest = board.current
        #expect(latest !== first, "a new snapshot once asked")
        #expect(latest.priceLine == "100.49\n", "made from the newest trade")
    }

    @Test func aFailingDiskShowsInLastErrorAndStatus() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        _ = intake.poll(quote("1.5"), failureSummary: "kraken: HTTP 500")
        intake.savingFailed("No space left on device")
        #expect(board.current.problems == "kraken: HTTP 500; saving: No space left on device")
        #expect(board.statusReply().contains(#""last_error":"kraken: HTTP 500; saving: No space left on device""#))
        intake.savingFailed(nil)
        #expect(board.current.problems == "kraken: HTTP 500")
    }

    @Test func aQuoteOfUnknownAgeIsStaleWithANullAge() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        intake.restored(quote: quote("1.5"), ageKnown: false)
        #expect(board.statusReply().contains(#""age":null,"state":"stale""#))
        #expect(board.statusSummary().text.hasPrefix("STALE, age unknown"))
    }

    @Test func withoutAQuoteThePriceReplyIsTheNodataError() throws {
        let (board, _, _) = makeBoard()
        #expect(board.priceReply().hasPrefix(#"{"error":"nodata""#))
        #expect(board.current.status == DaemonStatus(kind: .waiting, text: "waiting for first quote"))
    }

    /// A venue's 24 h range is refreshed every minute or so; a price beyond it must not be
    /// served beside a range that leaves it out (the status said high 114,459.80 at 121,000).
    @Test func theDayRangeAlwaysIncludesTheServedPrice() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        intake.stream(quote("114459.8"))
        _ = intake.dayRange(DayRange(open: try Price(parsing: "113020"), high: try Price(parsing: "114459.8"), low: try Price(parsing: "100000")),
                         from: .binance)
        intake.stream(quote("121000"))
        let above = board.statusReply()
        #expect(above.contains(#""high_24h":"121000","low_24h":"100000""#), "\(above)")
        intake.stream(quote("99000.5"))
        let below = board.statusReply()
        #expect(below.contains(#""high_24h":"114459.8","low_24h":"99000.5""#), "the new low; the high is the venue's again until its next refresh: \(below)")
    }
}
