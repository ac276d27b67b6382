import DaemonKit
import DaemonKitTesting
import InMemoryLogging
import Logging
import PriceCore
import Testing
import TestClocks

/// Restoring the saved quote through the QuoteStore port and the door, with no file.
@Suite("Quote keeper: what the last run saved, served at start or told why not")
struct QuoteKeeperTests {
    func restore(_ stored: StoredQuote) -> (board: PriceBoard<ManualClock>, log: [String]) {
        let (board, _, _) = makeBoard()
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "btcpriced") { _ in logs }
        QuoteKeeper(store: RecordingStore(stored: stored), logger: logger).restore(into: makeIntake(board, logger: logger))
        return (board, logs.entries.map { "\($0.level) \($0.message)" })
    }

    @Test func aSavedQuoteIsServedWithItsAge() {
        let (board, log) = restore(.quote(quote("114459.8", at: 1_763_740_800_000 - 30_000)))
        #expect(board.priceReply() == "114459.8\n")
        #expect(board.statusReply().contains(#""age":30.000,"state":"stale""#), "aged from its stamp, past the 10 s limit: \(board.statusReply())")
        #expect(log == ["info restored 114459.8 USDT via binance from 2025-11-21T15:59:30.000Z"], "\(log)")
    }

    @Test func aQuoteStampedInTheFutureIsServedAsStaleOfUnknownAge() {
        let (board, log) = restore(.quote(quote("114459.8", at: 1_763_740_800_000 + 3_600_000)))
        #expect(board.statusReply().contains(#""age":null,"state":"stale""#), "\(board.statusReply())")
        #expect(log.count == 1 && log[0].hasPrefix("warning (memory)/quote.json is stamped 2025-11-21T17:00:00.000Z, in the future"), "\(log)")
    }

    @Test func aForeignOrUnreadableFileServesNothingAndSaysWhy() {
        let foreign = restore(.foreign(quote("1"), reason: "saved from http://127.0.0.1:8080"))
        #expect(foreign.board.quote == nil)
        #expect(foreign.log == ["warning not restoring 1 USDT from (memory)/quote.json: saved from http://127.0.0.1:8080 (a test or fake exchange?); it is replaced by the next quote"],
                "\(foreign.log)")
        let unreadable = restore(.quarantined(reason: "not JSON", movedTo: "/var/lib/btcpriced/quote.json.corrupt"))
        #expect(unreadable.board.quote == nil)
        #expect(unreadable.log.first?.hasSuffix("moved it to /var/lib/btcpriced/quote.json.corrupt and starting without a saved quote") == true, "\(unreadable.log)")
    }
}
