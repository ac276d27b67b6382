import DaemonKit
import DaemonKitTesting
import InMemoryLogging
import Logging
import PriceCore
import Synchronization
import Testing
import TestClocks

/// The one door, through its public API: what one read of a stream (several messages) does,
/// which polled quotes it keeps and saves, and the changes that are not prices.
@Suite("Price intake: the only way a change reaches the board")
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

    /// The intake decides and mutates; what changed goes to its followers, in order, once.
    @Test func itsFollowersHearWhatChangedAndNothingWhenNothingDid() throws {
        let (board, _, wallClock) = makeBoard()
        let recorder = RecordingFollower(), logs = LogRecorder()
        let intake = PriceIntake(board: board, followers: [recorder, FirstQuoteLog(logger: logs.logger)], logger: logs.logger)
        let now = wallClock.now().millisecondsSinceEpoch
        intake.restored(quote: polled("114000", at: now - 60_000), ageKnown: true)
        let streamed = intake.accept([trade("114459.8", id: 5, at: now)], from: .binance) { _ in true }
        #expect(streamed.watchersSee && streamed.kept?.price.description == "114459.8", "\(streamed)")
        let nothing = intake.accept([trade("114000", id: 4, at: now - 5)], from: .binance) { _ in false }
        #expect(nothing == IntakeChange(), "\(nothing)")
        let all = recorder.heard.withLock { $0 }
        #expect(all == [IntakeChange(restoredQuote: true), streamed], "followers hear each change once, nothing for the turned-away read: \(all)")
        #expect(logs.messages(at: .info).isEmpty, "a restored quote makes the first live one no news: \(logs.messages(at: .info))")
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

    /// A fixed quote at `price` from `venue`, stamped at `milliseconds`.
    func polled(_ price: String, from venue: SourceName = .kraken, at milliseconds: Int64 = 1_763_740_800_000) -> Quote {
        Quote(price: try! Price(parsing: price), currency: "USD", symbol: "XBT/USD", source: venue, timestamp: Timestamp(millisecondsSinceEpoch: milliseconds))
    }

    /// A poll's reading is dated here, on arrival, by the rule that dates a streamed trade: a
    /// venue's answer made 4 s before it came is served 4 s old, whatever the loop's clock said.
    @Test func aPolledReadingIsStampedOnArrivalWithItsOriginsAge() throws {
        let (board, clock, wallClock) = makeBoard()
        let intake = makeIntake(board)
        clock.advance(by: .seconds(30))
        wallClock.advance(milliseconds: 30_000)
        let origin = wallClock.now().adding(milliseconds: -4_000)
        let reading = PolledReading(price: try Price(parsing: "114460.25"), currency: "USD", symbol: "XBT/USD", source: .kraken,
                                    origins: [AnswerOrigin(time: origin)])
        #expect(intake.accept(CycleReport(reading: reading, failureSummary: nil, nextCycleIn: .seconds(1))).watchersSee)
        let served = board.current
        #expect(served.quote?.timestamp == origin, "dated by its origin: \(String(describing: served.quote))")
        #expect(served.age.receivedAt.map { $0.duration(to: clock.now) } == .seconds(4), "4 s old on arrival: \(served.age)")
    }

    @Test func aPolledQuoteDoesNotReplaceAStreamedOneWhileTheGateSaysTheStreamCarriesQuotes() async throws {
        let (board, _, _) = makeBoard()
        let carrying = Mutex(true)
        let store = RecordingStore()
        let persister = QuotePersister(store: store, work: TestWork(), minimumInterval: .zero, logger: Logger(label: "test"))
        let intake = makeIntake(board, persister: persister, streamGate: StreamGate { now in carrying.withLock { $0 } ? now : nil })
        intake.stream(quote("114459.8"))
        #expect(!intake.poll(polled("114000")), "the poll began before the stream's trade: it is older")
        #expect(board.priceReply() == "114459.8\n" && board.stateKey.transport == .stream, "\(board.priceReply()) via \(board.stateKey.transport)")
        carrying.withLock { $0 = false }
        #expect(intake.poll(polled("114100")), "the stream stopped carrying quotes: REST takes over")
        #expect(board.priceReply() == "114100\n" && board.stateKey.transport == .poll, "\(board.priceReply()) via \(board.stateKey.transport)")
        persister.finish()
        await persister.run()
        let saved = store.record.withLock { $0.saved.map(\.price.description) }
        #expect(saved == ["114100"], "only kept quotes are offered, and the newest is written: \(saved)")
        #expect(store.record.withLock { $0.saved.map(\.source) } == [.kraken])
    }

    @Test func aQuoteTheBoardKeptOutIsNeverSaved() async throws {
        let (board, _, _) = makeBoard()
        let store = RecordingStore()
        let persister = QuotePersister(store: store, work: TestWork(), minimumInterval: .zero, logger: Logger(label: "test"))
        let intake = makeIntake(board, persister: persister, streamGate: StreamGate { $0 })
        intake.stream(quote("114459.8"))
        persister.finish()
        intake.poll(polled("114000"))
        await persister.run()
        let saved = store.record.withLock { $0.saved.map(\.price.description) }
        #expect(saved == ["114459.8"], "the streamed trade is saved, the poll the board kept out is not: \(saved)")
    }

    @Test func savingFailuresReachTheStatusThroughTheDoor() async throws {
        let (board, _, _) = makeBoard()
        let store = RecordingStore(failures: 1)
        let persister = QuotePersister(store: store, work: TestWork(), minimumInterval: .zero, logger: Logger(label: "test"))
        let lines = Mutex<[String]>([])
        let intake = makeIntake(board, persister: persister) { line in lines.withLock { $0.append(line) } }
        intake.poll(polled("114000"))
        persister.finish()
        await persister.run()  // the one write fails, and is tried again at the end, and works
        #expect(store.record.withLock { $0.started } == 2)
        await intake.followSaving(persister.problems)
        #expect(board.current.problems == nil, "failed then worked again: \(String(describing: board.current.problems))")
        let sent = lines.withLock { $0 }
        #expect(sent.count == 3 && sent[1].contains(#""last_error":"saving: No space left on device""#) && !sent[2].contains("last_error\":\"saving"),
                "watchers heard the quote, the failure and the recovery: \(sent)")
    }

    @Test func aRestoredQuoteIsServedButNotSavedAgainNorLoggedAsTheFirst() async throws {
        let (board, _, _) = makeBoard()
        let logs = InMemoryLogHandler()
        let store = RecordingStore()
        let persister = QuotePersister(store: store, work: TestWork(), minimumInterval: .zero, logger: Logger(label: "test"))
        let intake = makeIntake(board, persister: persister, logger: Logger(label: "btcpriced") { _ in logs })
        intake.restored(quote: polled("113000"), ageKnown: true)
        #expect(board.priceReply() == "113000\n")
        intake.poll(polled("114000", at: 1_763_740_801_000))
        persister.finish()
        await persister.run()
        #expect(store.record.withLock { $0.saved.map(\.price.description) } == ["114000"])
        let infos = logs.entries.map { "\($0.message)" }
        #expect(!infos.contains { $0.hasPrefix("first quote") }, "a restart with a saved quote logs no first quote: \(infos)")
    }

    @Test func aFirstQuoteIsLoggedOnceAndADayRangeGoesToWatchers() throws {
        let (board, _, _) = makeBoard()
        let logs = InMemoryLogHandler()
        let lines = Mutex<[String]>([])
        let intake = makeIntake(board, logger: Logger(label: "btcpriced") { _ in logs }) { line in lines.withLock { $0.append(line) } }
        intake.stream(quote("114459.8"))
        intake.stream(quote("114460"))
        let firsts = logs.entries.map { "\($0.message)" }.filter { $0.hasPrefix("first quote") }
        #expect(firsts == ["first quote: 114459.8 USDT via binance (BTCUSDT)"], "\(firsts)")
        #expect(intake.dayRange(DayRange(open: try Price(parsing: "110000"), high: try Price(parsing: "115000"), low: try Price(parsing: "109000")), from: .binance))
        let last = lines.withLock { $0.last } ?? ""
        #expect(last.contains(#""high_24h":"115000""#), "the day range went out: \(last)")
        #expect(!intake.dayRange(DayRange(open: try Price(parsing: "110000"), high: try Price(parsing: "115000"), low: try Price(parsing: "109000")), from: .binance),
                "the same range again changes nothing")
    }

    @Test func aReloadsPolicyAppliesAtOnce() throws {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(60))
        let intake = makeIntake(board)
        intake.poll(polled("114000"))
        clock.advance(by: .seconds(20))
        #expect(board.freshness().state == .fresh)
        #expect(intake.use(StalenessPolicy(staleAfter: .seconds(10))).watchersSee, "the shorter limit makes the 20 s old quote stale")
        #expect(board.freshness().state == .stale && board.current.stateKey.kind == .stale, "\(board.freshness().state)")
        #expect(!intake.timePassed().watchersSee, "already told")
    }
}

private final class RecordingFollower: IntakeFollower {
    let heard = Mutex<[IntakeChange]>([])
    func follow(_ change: IntakeChange) { heard.withLock { $0.append(change) } }
}
