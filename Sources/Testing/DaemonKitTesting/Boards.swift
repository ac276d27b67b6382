import DaemonKit
import Logging
import PriceCore
import TestClocks

/// A board on `clock` and `wallClock`, in US dollars.
public func makeBoard<C: Clock>(clock: C, wallClock: any WallClock, staleAfter: Duration = .seconds(10)) -> PriceBoard<C> {
    PriceBoard(currency: "USD", policy: StalenessPolicy(staleAfter: staleAfter), clock: clock, wallClock: wallClock)
}

/// A board on a ManualClock and a ManualWallClock.
public func makeBoard(staleAfter: Duration = .seconds(10)) -> (PriceBoard<ManualClock>, ManualClock, ManualWallClock) {
    let clock = ManualClock(), wallClock = ManualWallClock(Timestamp(millisecondsSinceEpoch: 1_763_740_800_000))
    return (makeBoard(clock: clock, wallClock: wallClock, staleAfter: staleAfter), clock, wallClock)
}

/// The one door on `board`, its publisher sending to `broadcast`, saving into a recording store.
public func makeIntake(_ board: PriceBoard<ManualClock>, health: DaemonHealth<ManualClock>? = nil, interval: Duration = .zero,
                       logger: Logger = Logger(label: "btcpriced"), broadcast: @escaping @Sendable (String) -> Void = { _ in }) -> PriceIntake<ManualClock> {
    PriceIntake(board: board, publisher: WatchPublisher(board: board, interval: interval, broadcast: broadcast),
                health: health ?? DaemonHealth(notifier: RecordingNotifier(), watchdogInterval: nil, clock: board.clock),
                persister: QuotePersister(store: RecordingStore(), work: ThreadWork(), minimumInterval: .zero, logger: logger), logger: logger)
}

/// A binance BTCUSDT quote at `price`, a literal the test writes: one that is not a price is a
/// bug in the test, so it stops the test run rather than being handled.
public func quote(_ price: String, at milliseconds: Int64 = 1_763_740_800_000) -> Quote {
    // try!: the literal is the test's own, never outside input; a bad one is a bug in that test.
    Quote(price: try! Price(parsing: price), currency: "USDT", symbol: "BTCUSDT", source: .binance,
          timestamp: Timestamp(millisecondsSinceEpoch: milliseconds))
}
