import DaemonKit
import DaemonKitTesting
import Logging
import PriceCore
import Synchronization
import Testing
import TestClocks

/// The stream supervisor (connect, stall, hand over to REST, back off, reconnect, rotate,
/// refuse) driven by a scripted stream on a ManualClock.
@Suite("Stream supervisor on a scripted stream and a manual clock", .timeLimit(.minutes(1)))
struct StreamSupervisorTests {
    typealias Policy = StreamLink<ManualClock.Instant>.Policy

    static func trade(_ price: String, at milliseconds: Int64) -> [StreamEvent] {
        [.trade(SourceQuote(price: try! Price(parsing: price), symbol: "BTCUSDT", quoteAsset: "USDT"),
                TradeStamp(milliseconds: milliseconds, tradeID: milliseconds))]
    }

    struct Running {
        let streams: StreamSupervisor<ManualClock>
        let board: PriceBoard<ManualClock>
        let clock: ManualClock
        let wallClock: ManualWallClock
        let logs: LogRecorder
        /// The watch lines the intake's publisher sent, one per change.
        let lines: Awaitable<[String]>
        let task: Task<Void, any Error>

        var state: String { streams.report(at: clock.now).state }
        var warnings: [String] { logs.messages(at: .warning) }
        var infos: [String] { logs.messages(at: .info) }

        /// Returns once watchers have been sent `price`: the stream's trade went through the door.
        func served(_ price: String) async {
            await lines.until { $0.contains { $0.contains(#""price":"\#(price)""#) } }
        }

        /// Moves the clock on a second at a time, letting every sleeper look at each second.
        func advance(seconds: Int, sleepers: Int = 1) async {
            for _ in 0..<seconds {
                _ = await clock.waitForSleepers(sleepers)
                clock.advance(by: .seconds(1))
                wallClock.advance(milliseconds: 1_000)
            }
            _ = await clock.waitForSleepers(sleepers)
        }
    }

    func start(_ streams: [(SourceName, ScriptedPriceStream)], policy: Policy = Policy()) async throws -> Running {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(60))
        let logs = LogRecorder(), lines = Awaitable<[String]>([])
        let logger = logs.logger
        let supervisor = try #require(StreamSupervisor(venues: streams.map { StreamVenue(name: $0, connection: $1, policy: policy) },
                                                       clock: clock, jitter: FixedJitter(0), logger: logger))
        let intake = makeIntake(board, streamGate: supervisor.gate, logger: logger) { line in lines.update { $0.append(line) } }
        let service = supervisor.service(feeding: intake, telling: { _ in })
        return Running(streams: supervisor, board: board, clock: clock, wallClock: wallClock, logs: logs, lines: lines, task: Task { try await service.run() })
    }

    @Test func aStalledStreamHandsOverToRESTThenReconnectsAfterItsRest() async throws {
        let now = Int64(1_763_740_800_000)
        let stream = ScriptedPriceStream([.open([Self.trade("100.5", at: now)]), .open([Self.trade("101.5", at: now + 9_000)])])
        let running = try await start([(.binance, stream)])
        defer { running.task.cancel() }
        await running.served("100.5")
        #expect(running.state == "live" && running.streams.gate.carriesQuotes(at: running.clock.now))

        await running.advance(seconds: 5)  // Policy().stallAfter: no message since
        await running.logs.until(.warning, "binance stream is down (no message for 5s); polling REST until it is back")
        #expect(running.state == "retrying")
        #expect(!running.streams.gate.carriesQuotes(at: running.clock.now), "REST polls while the stream rests")
        #expect(running.warnings == ["binance stream is down (no message for 5s); polling REST until it is back"])
        #expect(stream.connections == 1, "no reconnect before the rest is over")

        await running.advance(seconds: 2)  // Policy().firstRetry, with no jitter
        await running.served("101.5")
        #expect(stream.connections == 2 && running.state == "live")
        #expect(running.infos.filter { $0.contains("stream") } == ["streaming trades from binance; polling rests", "binance stream is back; polling rests"])
    }

    @Test func aRotationOpensTheReplacementFirstAndRetiresTheOldOnceItCarriesAPrice() async throws {
        let now = Int64(1_763_740_800_000)
        let stream = ScriptedPriceStream([.open([Self.trade("100.5", at: now)]), .open([Self.trade("101.5", at: now + 60_000)])])
        var policy = Policy()
        policy.rotateAfter = .seconds(60)
        policy.stallAfter = .seconds(3600)
        policy.priceSilenceAfter = .seconds(3600)
        let running = try await start([(.binance, stream)], policy: policy)
        defer { running.task.cancel() }
        await running.served("100.5")
        await running.advance(seconds: 59)
        #expect(running.streams.link(of: .binance)?.replacementSince == nil && stream.connections == 1, "not before the rotation age")
        await running.advance(seconds: 1)
        await running.served("101.5")
        #expect(stream.connections == 2 && running.state == "live")
        #expect(running.streams.report(at: running.clock.now).connections == 2)
        #expect(running.warnings.isEmpty, "a rotation is not an outage: \(running.warnings)")
    }

    @Test func aRefusingVenueRestsAnHourAndTheNextStreamsMeanwhile() async throws {
        let now = Int64(1_763_740_800_000)
        let binance = ScriptedPriceStream([.refuse(451)])
        let coinbase = ScriptedPriceStream([.open([Self.trade("100.5", at: now)])])
        var policy = Policy()
        policy.stallAfter = .seconds(7200)
        policy.priceSilenceAfter = .seconds(7200)
        let running = try await start([(.binance, binance), (.coinbase, coinbase)], policy: policy)
        defer { running.task.cancel() }
        await running.served("100.5")
        #expect(running.streams.current == .coinbase)
        #expect(running.warnings == ["binance refused the stream (declined upgrade, as from a restricted location); streaming from coinbase if it can, polling REST meanwhile, and not asking binance for its stream again for 60m"])
        await running.advance(seconds: 3600)
        #expect(binance.connections == 1 && coinbase.connections == 1, "a healthy stream is not dropped to ask the refusing venue again")
    }
}
