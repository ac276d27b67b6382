@testable import Daemon
import DaemonKit
import DaemonKitTesting
import FileStore
import Foundation
import InMemoryLogging
import Logging
import PriceCore
import Synchronization
import Testing
import TestClocks

/// A price stream that follows a script, one entry per connection: no socket, no exchange.
final class ScriptedPriceStream: PriceStream {
    enum Connection: Sendable {
        /// Declines the connection with this HTTP status.
        case refuse(Int)
        /// Opens, delivers these messages, then stays open and silent until it is given up.
        case open([[StreamEvent]])
    }

    private let script: Mutex<[Connection]>
    private let started = Mutex(0)

    init(_ script: [Connection]) { self.script = Mutex(script) }

    /// Connections asked for so far.
    var connections: Int { started.withLock { $0 } }

    func run<Instant>(opened: @escaping @Sendable () -> Void,
                      received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        started.withLock { $0 += 1 }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        switch next {
        case nil:
            return .failed("the script has no more connections")
        case .refuse(let status):
            return .refused(status: status)
        case .open(let messages):
            opened()
            for message in messages { received(message) }
            // Silent until cancelled, as a venue that stopped sending.
            for await _ in AsyncStream<Never>(Never.self, { _ in }) {}
            return .closed("cancelled")
        }
    }
}

/// The stream supervisor (connect, stall, hand over to REST, back off, reconnect, refuse) driven
/// by a scripted stream on a ManualClock.
@Suite("Stream supervisor on a scripted stream and a manual clock")
struct StreamSupervisorTests {
    typealias Policy = StreamLink<ManualClock.Instant>.Policy

    static func trade(_ price: String, at milliseconds: Int64) -> [StreamEvent] {
        [.trade(SourceQuote(price: try! Price(parsing: price), symbol: "BTCUSDT", quoteAsset: "USDT"),
                TradeStamp(milliseconds: milliseconds, tradeID: milliseconds))]
    }

    struct Running {
        let lineup: StreamLineup<ManualClock.Instant>
        let board: PriceBoard<ManualClock>
        let clock: ManualClock
        let logs: InMemoryLogHandler
        let task: Task<Void, any Error>

        var state: String { lineup.report(at: clock.now).state }
        var warnings: [String] { logs.entries.filter { $0.level == .warning }.map { "\($0.message)" } }
        var infos: [String] { logs.entries.filter { $0.level == .info }.map { "\($0.message)" } }

        /// Moves the clock on a second at a time, letting every sleeper look at each second.
        func advance(seconds: Int, sleepers: Int = 1) async {
            for _ in 0..<seconds {
                _ = await clock.waitForSleepers(sleepers)
                clock.advance(by: .seconds(1))
            }
            _ = await clock.waitForSleepers(sleepers)
        }
    }

    func start(_ streams: [(SourceName, ScriptedPriceStream)], policy: Policy = Policy()) async throws -> Running {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(60))
        let directory = NSTemporaryDirectory() + "btcpriced-supervisor-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let lineup = try #require(StreamLineup(streams.map { name, stream in
            .init(connection: stream, state: StreamState(venue: name, link: StreamLink(policy: policy, now: clock.now)))
        }))
        board.attach { lineup.isHealthy(at: $0) }
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "btcpriced") { _ in logs }
        let service = StreamService(lineup: lineup, intake: makeIntake(board, logger: logger), ledger: SourceLedger(),
                                    restraints: RestraintKeeper(store: .init(directory: directory), logger: logger),
                                    clock: clock, jitter: FixedJitter(0), logger: logger)
        return Running(lineup: lineup, board: board, clock: clock, logs: logs, task: Task { try await service.run() })
    }

    @Test(.timeLimit(.minutes(1))) func aStalledStreamHandsOverToRESTThenReconnectsAfterItsRest() async throws {
        let now = Int64(1_763_740_800_000)
        let stream = ScriptedPriceStream([.open([Self.trade("100.5", at: now)]), .open([Self.trade("101.5", at: now + 9_000)])])
        let running = try await start([(.binance, stream)])
        defer { running.task.cancel() }
        try await eventually { running.board.quote?.price.description == "100.5" }
        #expect(running.state == "live" && running.lineup.isHealthy(at: running.clock.now))

        await running.advance(seconds: 5)  // Policy().stallAfter: no message since
        try await eventually { running.state == "retrying" }
        #expect(!running.lineup.isHealthy(at: running.clock.now), "REST polls while the stream rests")
        #expect(running.warnings == ["binance stream is down (no message for 5s); polling REST until it is back"])
        #expect(stream.connections == 1, "no reconnect before the rest is over")

        await running.advance(seconds: 2)  // Policy().firstRetry, with no jitter
        try await eventually { running.board.quote?.price.description == "101.5" }
        #expect(stream.connections == 2 && running.state == "live")
        #expect(running.infos.filter { $0.contains("stream") } == ["streaming trades from binance; polling rests", "binance stream is back; polling rests"])
    }

    @Test(.timeLimit(.minutes(1))) func aRefusingVenueRestsAnHourAndTheNextStreamsMeanwhile() async throws {
        let now = Int64(1_763_740_800_000)
        let binance = ScriptedPriceStream([.refuse(451)])
        let coinbase = ScriptedPriceStream([.open([Self.trade("100.5", at: now)])])
        var policy = Policy()
        policy.stallAfter = .seconds(7200)
        policy.priceSilenceAfter = .seconds(7200)
        let running = try await start([(.binance, binance), (.coinbase, coinbase)], policy: policy)
        defer { running.task.cancel() }
        try await eventually { running.board.quote?.price.description == "100.5" }
        #expect(running.lineup.current.state.venue == .coinbase)
        #expect(running.warnings == ["binance refused the stream (declined upgrade, as from a restricted location); streaming from coinbase if it can, polling REST meanwhile, and not asking binance for its stream again for 60m"])
        await running.advance(seconds: 3600)
        #expect(binance.connections == 1 && coinbase.connections == 1, "a healthy stream is not dropped to ask the refusing venue again")
    }
}
