import DaemonKit
import DaemonKitTesting
import FoundationEssentials
import PriceCore
import Testing
import TestClocks
import WireProtocol

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

    /// The price at a moment: the nearest minute's close within an hour, else the day's close,
    /// else none and why; never a price between bars, never one for a moment to come.
    @Test func thePriceAtAMomentIsTheNearestMinuteElseItsDayElseNone() throws {
        let (board, _, wallClock) = makeBoard()
        let intake = makeIntake(board)
        intake.stream(quote("100000"))
        let now = wallClock.now().millisecondsSinceEpoch / 1000, minute = MinuteBar.minute(of: wallClock.now())
        let today = DailyBar.day(of: wallClock.now())
        let price = { (text: String) in try #require(Decimal(string: text)) }
        board.history.restore(DailyHistory(bars: [DailyBar(day: today - 400, open: try price("61000"), high: try price("62000"), low: try price("60000"), close: try price("61234.5")),
                                                  DailyBar(day: today - 2, open: try price("98000"), high: try price("99500"), low: try price("97000"), close: try price("99000.25"))]))
        func at(_ seconds: Int64) -> PriceAtReply { board.price(at: PriceAtQuery(seconds: seconds)) }

        #expect(at(now).found == .init(time: minute * 60, price: "100000", basis: .minute), "\(at(now).line)")
        #expect(at(now - 59 * 60).found?.basis == .minute, "within an hour of the minute")
        let twoDaysAgo = (today - 2) * 86_400 + 3600
        #expect(at(twoDaysAgo).found == .init(time: (today - 2) * 86_400, price: "99000.25", basis: .day), "\(at(twoDaysAgo).line)")
        #expect(at((today - 400) * 86_400 + 43_200).found?.price == "61234.5")
        let gap = at((today - 3) * 86_400)
        #expect(gap.found == nil && gap.missing == .gap && gap.reason?.contains("no close for its day") == true, "\(gap.line)")
        let before = at((today - 401) * 86_400)
        #expect(before.missing == .beforeHistory && before.reason?.hasSuffix("before the first day kept (\(DailyBar.date(of: today - 400)))") == true,
                "\(before.line)")
        let future = at(now + 120)
        #expect(future.missing == .future && future.found == nil, "\(future.line)")
        let earlierToday = at(now - 2 * 3600)
        #expect(earlierToday.missing == .gap && earlierToday.reason?.hasSuffix("its day is not over") == true,
                "two hours back, with no minute near and today not over: \(earlierToday.line)")
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
