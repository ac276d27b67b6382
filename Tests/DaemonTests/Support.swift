@testable import Daemon
import DaemonConfig
import Logging
import PriceCore
import Synchronization
import TestClocks

/// A board on a ManualClock and a ManualWallClock, with the default source chain.
func makeBoard(staleAfter: String = "10s") throws -> (PriceBoard<ManualClock>, ManualClock, ManualWallClock) {
    let settings = try SettingsLoader.load(.init(environment: ["BTCPRICED_STALE_AFTER": staleAfter]))
    let clock = ManualClock(), wallClock = ManualWallClock(Timestamp(millisecondsSinceEpoch: 1_763_740_800_000))
    return (PriceBoard(directory: SourceDirectory(plan: try SourcePlan(settings)), clock: clock, wallClock: wallClock), clock, wallClock)
}

func quote(_ price: String, at milliseconds: Int64 = 1_763_740_800_000) -> Quote {
    Quote(price: try! Price(parsing: price), currency: "USDT", symbol: "BTCUSDT", source: .binance,
          timestamp: Timestamp(millisecondsSinceEpoch: milliseconds))
}

