import DaemonKit
import DaemonKitTesting
import Exchanges
import FakeExchange
import FileStore
import Foundation
import Logging
import PriceCore
import Streams
import Systemd
import Testing
import TestClocks

/// The stream supervisor in-process, against the fake exchange's real WebSocket endpoints, with
/// the links' time on a ManualClock: rotations and rests happen when the test moves the clock.
@Suite("Stream supervisor: overlapping rotation and refusal hand-over, on a manual clock", .timeLimit(.minutes(1)))
struct StreamSupervisorExchangeTests {
    typealias Policy = StreamLink<ManualClock.Instant>.Policy

    struct Running {
        let streams: StreamSupervisor<ManualClock>
        let board: PriceBoard<ManualClock>
        let clock: ManualClock
        let logs: LogRecorder
        /// The watch lines the intake's publisher sent, one per change.
        let lines: Awaitable<[String]>
        let task: Task<Void, any Error>
        /// The state directory the test did not give, removed by `stop()`.
        let ownedDirectory: String?

        /// Ends the service and removes what it made.
        func stop() {
            task.cancel()
            if let ownedDirectory { try? FileManager.default.removeItem(atPath: ownedDirectory) }
        }

        func state(_ index: Int) -> StreamLink<ManualClock.Instant> { streams.link(of: streams.venues[index])! }
        var warnings: [String] { logs.messages(at: .warning) }
        var infos: [String] { logs.messages(at: .info) }

        /// Returns once `venue`'s stream carries trades, as the service announces it.
        func streaming(from venue: String) async {
            if !(await logs.until(.info, "streaming trades from \(venue); polling rests")) {
                Issue.record("\(venue) never streamed; the log: \(logs.lines.value)")
            }
        }
    }

    static func makeStateDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "btcpriced-stream-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts the service as the daemon does, with sources.json in `stateDirectory` restored first.
    func start(_ venues: [Venue], on exchange: FakeExchange, policy: Policy,
               stateDirectory: String? = nil, executor: (any TaskExecutor)? = nil) async throws -> Running {
        let ownedDirectory = stateDirectory == nil ? try Self.makeStateDirectory() : nil
        let stateDirectory = stateDirectory ?? ownedDirectory ?? ""
        let (board, clock, wallClock) = makeBoard()
        let logs = LogRecorder(), lines = Awaitable<[String]>([])
        let logger = logs.logger
        let streams = try #require(StreamSupervisor(venues: venues.map { venue in
            StreamVenue(name: venue.name, connection: VenueStream(venue: venue, url: "ws://127.0.0.1:\(exchange.port)\(venue == .kraken ? "/v2" : "/")")!,
                        policy: policy)
        }, clock: clock, jitter: FixedJitter(0), logger: logger, executor: executor))
        let door = LedgerKeeper(LedgerDoor(SourceLedger()), chain: [],
                              restraints: RestraintKeeper(store: FileRestraintStore(directory: stateDirectory), work: TestWork(), logger: logger),
                              clock: clock, wallClock: wallClock, logger: logger)
        await door.restore()
        _ = streams.resumeRefusals(from: door.ledger, at: clock.now)
        let intake = makeIntake(board, streamGate: streams.gate, logger: logger) { line in lines.update { $0.append(line) } }
        let service = streams.service(feeding: intake, telling: { await door.handle($0) })
        return Running(streams: streams, board: board, clock: clock, logs: logs, lines: lines, task: Task { try await service.run() },
                       ownedDirectory: ownedDirectory)
    }

    @Test func aRotationOpensTheReplacementBesideTheLiveConnectionAndClosesTheOldOnceItCarriesTrades() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114459.80", "114460.25"], perSecond: 20))
        var policy = Policy()
        policy.rotateAfter = .seconds(60)
        policy.stallAfter = .seconds(3600)
        let running = try await start([.binance], on: exchange, policy: policy)
        defer { running.stop() }
        await running.streaming(from: "binance")
        #expect(running.streams.report(at: running.clock.now).state == "live")
        let opened = running.clock.now
        #expect(await running.clock.waitForSleepers(1))
        running.clock.advance(by: .seconds(59))
        #expect(await running.clock.waitForSleepers(1), "the link's watch looked at the link and sleeps again")
        #expect(running.state(0).replacementSince == nil && exchange.streamConnectionCount(.binance) == 1, "not before the rotation age")
        running.clock.advance(by: .seconds(1))
        await exchange.until { $0.streamConnectionCount(.binance) == 2 && $0.openStreamCount(.binance) == 1 }
        #expect(exchange.mostOpenStreams(.binance) == 2, "the replacement was open before the old connection closed")
        #expect(running.state(0).phase == .live(since: opened.advanced(by: .seconds(60)), lastMessage: running.clock.now),
                "the replacement carries the stream, with its own age")
        #expect(running.streams.report(at: running.clock.now).connections == 2)
        // The board's wall clock is fixed in 2025 while the fake stamps trades with the real
        // time: that the host clock is behind the venue's is true here, and beside the point.
        let outages = running.warnings.filter { !$0.hasPrefix("the host clock is") }
        #expect(outages.isEmpty, "a rotation is not an outage: \(running.warnings)")
        #expect(running.infos.filter { !$0.hasPrefix("first quote") } == ["streaming trades from binance; polling rests"])
        #expect(await running.clock.waitForSleepers(1))
        running.clock.advance(by: .seconds(59))
        #expect(await running.clock.waitForSleepers(1), "the link's watch looked at the link and sleeps again")
        #expect(running.state(0).replacementSince == nil && exchange.streamConnectionCount(.binance) == 2,
                "the replacement's age counts from its own start")
        await exchange.shutdown()
    }

    @Test func aRefusingVenueHandsTheStreamToTheNextWithOneWarningAndRestsAnHour() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .refuse(451))
        exchange.setStream(.coinbase, .trades(prices: ["114470.5"], perSecond: 20))
        var policy = Policy()
        policy.stallAfter = .seconds(7200)
        let running = try await start([.binance, .coinbase], on: exchange, policy: policy)
        defer { running.stop() }
        let started = running.clock.now
        await running.streaming(from: "coinbase")
        #expect(running.state(1).isLive && running.streams.current == .coinbase)
        #expect(running.state(0).phase == .refused(until: started.advanced(by: .seconds(3600))))
        #expect(running.warnings == ["binance refused the stream (declined upgrade, as from a restricted location); streaming from coinbase if it can, polling REST meanwhile, and not asking binance for its stream again for 60m"])
        #expect(await running.clock.waitForSleepers(1))
        running.clock.advance(by: .seconds(3600))
        #expect(await running.clock.waitForSleepers(1), "the link's watch looked at the link and sleeps again")
        #expect(exchange.streamRefusalCount(.binance) == 1 && exchange.streamConnectionCount(.coinbase) == 1,
                "a healthy stream is not dropped to try the first choice again")
        // Trades keep coming over the socket; the first after the hour (its watch line is the
        // event) makes the stream carry quotes again.
        let (gate, clock) = (running.streams.gate, running.clock)
        if !(await running.lines.until { _ in gate.carriesQuotes(at: clock.now) }) {
            Issue.record("the stream does not carry quotes after the hour: the log: \(running.logs.lines.value), state \(running.state(1).phase)")
        }
        await exchange.shutdown()
    }

    /// The connection's task and the watch on its link run where the daemon runs its services,
    /// on its event loop: each of the watch's wakeups would otherwise hop to the global
    /// executor and back.
    @Test func theConnectionAndTheWatchOnItsLinkRunOnTheGivenExecutor() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114459.80"], perSecond: 20))
        var policy = Policy()
        policy.stallAfter = .seconds(3600)
        // Queued, as the event loop runs its jobs: the supervisor's task group cancels its children.
        let executor = CountingExecutor(runningOn: DispatchQueue(label: "the daemon's loop"))
        let running = try await start([.binance], on: exchange, policy: policy, executor: executor)
        defer { running.stop() }
        await running.streaming(from: "binance")
        let started = executor.jobs
        #expect(started >= 2, "the connection and the watch started on the executor: \(started) job(s) there")
        #expect(await running.clock.waitForSleepers(1))
        // To the watch's own deadline, whatever it is: a fixed minute once fell short of it on a
        // loaded CI host, and the watch never woke.
        let deadline = try #require(running.clock.nextDeadline, "the watch sleeps until a deadline")
        running.clock.advance(to: deadline)
        #expect(await running.clock.waitForSleepers(1), "the link's watch looked at the link and sleeps again")
        #expect(executor.jobs > started, "the watch woke on the executor too: \(executor.jobs) job(s) there, \(started) before")
        await exchange.shutdown()
    }

    /// A restart (or a restart loop) must not ask a geo-blocking venue again within its hour:
    /// the refusal is kept in sources.json and the next run starts with that venue refused.
    @Test func aRefusalOutlivesARestartAndTheNextRunDoesNotAskAgain() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .refuse(451))
        exchange.setStream(.coinbase, .trades(prices: ["114470.5"], perSecond: 20))
        var policy = Policy()
        policy.stallAfter = .seconds(7200)
        let directory = try Self.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await start([.binance, .coinbase], on: exchange, policy: policy, stateDirectory: directory)
        await first.streaming(from: "coinbase")
        first.task.cancel()
        _ = try? await first.task.value
        let saved = try FileRestraintStore(directory: directory).load()
        #expect(saved[.binance]?.streamRefusedUntil == Timestamp(millisecondsSinceEpoch: 1_763_740_800_000 + 3_600_000),
                "the refusal's hour, in wall time, as the first run began it")
        #expect(exchange.streamRefusalCount(.binance) == 1)

        let second = try await start([.binance, .coinbase], on: exchange, policy: policy, stateDirectory: directory)
        defer { second.task.cancel() }
        #expect(second.state(0).phase == .refused(until: second.clock.now.advanced(by: .seconds(3600))))
        await second.streaming(from: "coinbase")
        #expect(exchange.streamRefusalCount(.binance) == 1, "the second run did not ask binance for its stream")
        #expect(second.streams.current == .coinbase)
        await exchange.shutdown()
    }
}
