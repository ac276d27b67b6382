import DaemonKit
import DaemonKitTesting
import FoundationEssentials
import PriceCore
import Testing
import TestClocks

/// The history as a board of its own: fed by the intake with each kept quote, filled by the
/// backfill, and read by the price board for the change figures.
@Suite("History board")
struct HistoryBoardTests {
    @Test func eachKeptQuoteGoesIntoItsMinuteAndARestoredOneDoesNot() throws {
        let (board, _, wallClock) = makeBoard()
        let intake = makeIntake(board)
        intake.restored(quote: quote("99000"), ageKnown: true)
        #expect(board.history.minutes.bars.isEmpty, "a restored quote was recorded when it was live")
        intake.stream(quote("100000"))
        intake.stream(quote("100500"))
        let minute = MinuteBar.minute(of: wallClock.now())
        let bars = board.history.minutes.bars
        #expect(bars.map(\.minute) == [minute] && bars.first?.close == Decimal(string: "100500") && bars.first?.high == Decimal(string: "100500"),
                "\(bars)")
        #expect(board.history.minutes(changedSince: -1) != nil)
    }

    /// A snapshot made before the backfill filled the hour is made again: the status shows the
    /// hour's change at once, without waiting for the next trade.
    @Test func aSnapshotIsMadeAgainOnceTheHistoryItWasMadeFromChanged() throws {
        let (board, _, wallClock) = makeBoard()
        let intake = makeIntake(board)
        intake.stream(quote("101000"))
        #expect(board.current.statusLine.contains(#""change_1h":null"#), "\(board.current.statusLine)")
        let hourAgo = MinuteBar.minute(of: wallClock.now()) - 60
        let price = try #require(Decimal(string: "100000"))
        let filled = intake.board.history.fill(CandleBatch(reading: [MinuteBar(minute: hourAgo, open: price, high: price, low: price, close: price)]),
                                   within: hourAgo...hourAgo, from: "binance")
        #expect(filled == 1)
        let line = board.current.statusLine
        #expect(line.contains(#""change_1h":"1.00""#), "the filled hour ago gives +1 %: \(line)")
        #expect(board.statusReply().contains(#""change_1h":"1.00""#), "\(board.statusReply())")
    }
}
