import DaemonKit
import DaemonKitTesting
import PriceCore
import Synchronization
import Testing
import TestClocks

/// The one door, through its public API: what one read of a stream (several messages) does.
@Suite("Price intake: a read's newest admitted price is applied, once")
struct PriceIntakeTests {
    func trade(_ price: String, id: Int64, at milliseconds: Int64) -> StreamEvent {
        .trade(SourceQuote(price: try! Price(parsing: price), symbol: "BTCUSDT", quoteAsset: "USDT"),
               TradeStamp(time: Timestamp(millisecondsSinceEpoch: milliseconds), tradeID: id))
    }

    @Test func aReadOfManyTradesAppliesTheNewestAdmittedOneAndWatchersHearOneLine() throws {
        let (board, _, wallClock) = makeBoard()
        let lines = Mutex<[String]>([])
        let intake = makeIntake(board) { line in lines.withLock { $0.append(line) } }
        var order = StreamOrder()
        let now = wallClock.now().millisecondsSinceEpoch
        let read: [StreamEvent] = [trade("114459.8", id: 1, at: now - 30), trade("114460.25", id: 2, at: now - 20),
                                   .alive, trade("114461.1", id: 3, at: now - 10),
                                   trade("114400", id: 2, at: now - 20)] // a late duplicate: the order rule turns it away
        var asked = 0
        intake.accept(read, from: .binance) { event in
            asked += 1
            return order.admits(event)
        }
        #expect(asked == 4, "every price passes the order rule: \(asked)")
        #expect(board.priceReply() == "114461.1\n", "the newest admitted trade is served, not the late one: \(board.priceReply())")
        let written = lines.withLock { $0 }
        #expect(written.count == 1 && written[0].contains(#""price":"114461.1""#), "one watch line for the read: \(written)")
    }

    @Test func aReadWhoseTradesAreAllTurnedAwayChangesNothing() throws {
        let (board, _, wallClock) = makeBoard()
        let intake = makeIntake(board)
        let now = wallClock.now().millisecondsSinceEpoch
        intake.accept([trade("114459.8", id: 5, at: now)], from: .binance) { _ in true }
        let before = board.current
        intake.accept([trade("114000", id: 4, at: now - 5), trade("113000", id: 3, at: now - 9)], from: .binance) { _ in false }
        #expect(board.priceReply() == "114459.8\n")
        #expect(board.current === before, "no snapshot is made for a read that brought nothing newer")
    }
}
