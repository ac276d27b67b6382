import DaemonKit
import DaemonKitTesting
import FileStore
import Foundation
import Logging
import PriceCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
import TestClocks
import WireProtocol

@Suite("History in the daemon: change figures, the history verb, saving every ten minutes", .timeLimit(.minutes(1)))
struct HistoryTests {
    func poll(_ intake: PriceIntake<ManualClock>, _ price: String) -> Snapshot<ManualClock.Instant>? {
        intake.poll(quote(price)) ? intake.board.current : nil
    }

    /// Polls `price` then moves both clocks on by `minutes`.
    func step(_ intake: PriceIntake<ManualClock>, _ clock: ManualClock, _ wallClock: ManualWallClock, _ price: String, minutes: Int64) {
        _ = poll(intake, price)
        clock.advance(by: .seconds(60 * minutes))
        wallClock.advance(milliseconds: 60_000 * minutes)
    }

    @Test func theStatusGainsChangesAsTheHistoryFills() throws {
        let (board, clock, wallClock) = makeBoard()
        let intake = makeIntake(board)
        step(intake, clock, wallClock, "100000", minutes: 60)
        let hour = try #require(poll(intake, "101270"))
        #expect(hour.statusLine.contains(#""change_1h":"1.27","change_24h":null,"change_7d":null,"open_24h":null"#))
        step(intake, clock, wallClock, "101270", minutes: 1380)
        let day = try #require(poll(intake, "98730"))
        #expect(day.statusLine.contains(#""change_24h":"-1.27""#) && day.statusLine.contains(#""open_24h":"100000","high_24h":"101270","low_24h":"98730""#))
        #expect(day.statusLine.contains(#""change_1h":null"#), "an hour ago was a gap: unknown, not guessed")
    }

    @Test func aStreamingVenuesDayFiguresServeUntilTheHistoryCoversADay() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        _ = intake.stream(quote("110000"))
        #expect(intake.dayRange(DayRange(open: try Price(parsing: "100000"), high: try Price(parsing: "111000"), low: try Price(parsing: "99000")), from: .binance))
        let snapshot = board.current
        #expect(snapshot.statusLine.contains(#""change_24h":"10.00","change_7d":null,"open_24h":"100000","high_24h":"111000","low_24h":"99000""#))
        #expect(intake.dayRange(DayRange(open: nil, high: try Price(parsing: "111000"), low: try Price(parsing: "99000")), from: .binance))
        let noOpen = board.current
        #expect(noOpen.statusLine.contains(#""change_24h":null"#), "Coinbase sends no open: no 24 h change")
    }

    @Test func theHistoryVerbAnswersTheDownsampledCloses() throws {
        let (board, clock, wallClock) = makeBoard()
        let intake = makeIntake(board)
        for price in ["1", "2", "3", "4"] { step(intake, clock, wallClock, price, minutes: 15) }
        #expect(board.historyReply(HistoryQuery(range: .hour, points: 4))
                == #"{"range":"1h","currency":"USDT","points":[["2025-11-21T16:15:00Z","2"],["2025-11-21T16:30:00Z","3"],["2025-11-21T16:45:00Z","4"],["2025-11-21T17:00:00Z",null]],"summary":{"since":"2025-11-21T16:15:00Z","open":"2","close":"4","low":"2","low_at":"2025-11-21T16:15:00Z","high":"4","high_at":"2025-11-21T16:45:00Z"},"filled":[]}"# + "\n",
                "the summary takes the bars inside the hour; 16:00 is its edge; the currency is the quote's, as status says")
    }

    @Test func aRestoredHistoryDropsMinutesFromTheFuture() throws {
        let (board, _, wallClock) = makeBoard()
        let intake = makeIntake(board)
        let now = MinuteBar.minute(of: wallClock.now())
        let bars = [now - 2, now, now + 5].map { MinuteBar(minute: $0, open: 1, high: 1, low: 1, close: 1) }
        #expect(intake.board.history.restore(PriceHistory(bars: bars)) == 1)
        #expect(board.history.minutes(changedSince: -1)?.history.bars.map(\.minute) == [now - 2, now])
    }

    @Test func savesAppendNewBarsAndRewriteTheFileAtStartAndAfterADayOfLines() async throws {
        let (board, clock, wallClock) = makeBoard()
        let intake = makeIntake(board)
        let directory = NSTemporaryDirectory() + "btcpriced-history-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileHistoryStore(directory: directory)
        let saver = HistorySaver(store: store, work: TestWork(), logger: Logger(label: "test"))
        func inode() throws -> Int? { try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int }
        func lines() throws -> Int { try String(contentsOfFile: store.path, encoding: .utf8).split(separator: "\n").count }
        step(intake, clock, wallClock, "100", minutes: 1)
        await saver.save(from: board)
        let first = try inode()
        #expect(try lines() == 2, "the header and one bar, written whole")
        var inodes: Set<Int?> = []
        for minute in 0..<HistorySaver.linesBeforeRewrite / 2 {
            step(intake, clock, wallClock, "\(101 + minute % 7)", minutes: 1)
            await saver.save(from: board)
            inodes.insert(try inode())
        }
        #expect(inodes == [first], "appended in place until a day of lines")
        #expect(try lines() > 1 + HistorySaver.linesBeforeRewrite / 2, "each save repeats the minute it last wrote")
        guard case .kept(let onDisk) = try store.load() else { Issue.record("unreadable after appends"); return }
        #expect(onDisk == board.history.minutes(changedSince: -1)?.history, "the appended file reads back as the board's history")
        for _ in 0..<3 {
            step(intake, clock, wallClock, "99", minutes: 1)
            await saver.save(from: board)
        }
        #expect(try inode() != first, "rewritten whole after \(HistorySaver.linesBeforeRewrite) appended lines")
        #expect(try lines() < 1 + HistorySaver.linesBeforeRewrite / 2 + 10, "no repeated minutes after the rewrite")
    }

    @Test func theServiceSavesAtMostEveryTenMinutesOnlyWhenChangedAndAtShutdown() async throws {
        let (board, clock, wallClock) = makeBoard()
        let intake = makeIntake(board)
        let directory = NSTemporaryDirectory() + "btcpriced-history-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = FileHistoryStore(directory: directory)
        let work = TestWork()
        let saver = HistorySaver(store: store, work: work, logger: Logger(label: "test"))
        func savedBars() -> Int? { if case .kept(let history)? = try? store.load() { history.bars.count } else { nil } }
        try await testGracefulShutdown { trigger in
            let group = ServiceGroup(services: [HistoryService(board: board, saver: saver, clock: clock)], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(await clock.waitForSleepers(1))
                _ = poll(intake, "100")
                clock.advance(by: .seconds(599))
                #expect(savedBars() == nil, "not before ten minutes are up")
                wallClock.advance(milliseconds: 600_000)
                clock.advance(by: .seconds(1))
                await work.finished(1)
                #expect(savedBars() == 1)
                #expect(await clock.waitForSleepers(1))
                let modified = try FileManager.default.attributesOfItem(atPath: store.path)[.modificationDate] as? Date
                clock.advance(by: .seconds(600))
                #expect(await clock.waitForSleepers(1))
                #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.modificationDate] as? Date == modified, "unchanged: not rewritten")
                _ = poll(intake, "101")
                trigger.triggerGracefulShutdown()
                try await tasks.next()
            }
        }
        #expect(savedBars() == 2, "the last minute is saved at shutdown")
    }
}
