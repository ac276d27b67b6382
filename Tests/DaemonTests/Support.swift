@testable import Daemon
import DaemonKit
import DaemonConfig
import Foundation
import Logging
import MetricsExport
import PriceCore
import Synchronization
import TestClocks

/// A board on a ManualClock and a ManualWallClock, with the default source chain.
func makeBoard(staleAfter: String = "10s") throws -> (PriceBoard<ManualClock>, ManualClock, ManualWallClock) {
    let clock = ManualClock(), wallClock = ManualWallClock(Timestamp(millisecondsSinceEpoch: 1_763_740_800_000))
    return (try makeBoard(clock: clock, wallClock: wallClock, staleAfter: staleAfter), clock, wallClock)
}

func makeBoard<C: Clock>(clock: C, wallClock: any WallClock, staleAfter: String = "10s") throws -> PriceBoard<C> {
    let settings = try SettingsLoader.load(.init(environment: ["BTCPRICED_STALE_AFTER": staleAfter]))
    return PriceBoard(currency: settings.currency.code, policy: try SourcePlan(settings).stalenessPolicy, clock: clock, wallClock: wallClock)
}

/// The socket's answers over `board`, with the default source chain.
func makeReplies<C: Clock>(_ board: PriceBoard<C>, metrics: PrometheusExporter = PrometheusExporter()) throws -> SocketReplies<C> {
    SocketReplies(board: board, directory: SourceDirectory(plan: try SourcePlan(try SettingsLoader.load(.init(environment: [:])))), metrics: metrics)
}

/// The one door on `board`, its publisher sending to `broadcast`, saving into a recording store.
func makeIntake(_ board: PriceBoard<ManualClock>, health: DaemonHealth<ManualClock>? = nil, interval: Duration = .zero,
                logger: Logger = Logger(label: "btcpriced"), broadcast: @escaping @Sendable (String) -> Void = { _ in }) -> PriceIntake<ManualClock> {
    PriceIntake(board: board, publisher: WatchPublisher(board: board, interval: interval, broadcast: broadcast),
                health: health ?? DaemonHealth(notifier: RecordingNotifier(), watchdogInterval: nil, clock: board.clock),
                persister: QuotePersister(store: RecordingStore(), work: ThreadWork(), minimumInterval: .zero, logger: logger), logger: logger)
}

func quote(_ price: String, at milliseconds: Int64 = 1_763_740_800_000) -> Quote {
    Quote(price: try! Price(parsing: price), currency: "USDT", symbol: "BTCUSDT", source: .binance,
          timestamp: Timestamp(millisecondsSinceEpoch: milliseconds))
}


/// Blocking work on a thread of its own, as the daemon runs it on a pool: a gated store may block.
struct ThreadWork: BlockingWork {
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
