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

/// The one door on `board`, its publisher sending to `broadcast`, saving with `persister` (or into `store`).
public func makeIntake<C: Clock>(_ board: PriceBoard<C>, health: DaemonHealth<C>? = nil, interval: Duration = .zero,
                                 store: any QuoteStore = RecordingStore(), persister: QuotePersister? = nil,
                                 streamGate: StreamGate<C.Instant> = .closed, logger: Logger = Logger(label: "btcpriced"),
                                 broadcast: @escaping @Sendable (String) -> Void = { _ in }) -> PriceIntake<C> {
    makeIntake(board, publisher: WatchPublisher(board: board, interval: interval, audience: .watched(), broadcast: broadcast), health: health, store: store,
               persister: persister, streamGate: streamGate, logger: logger)
}

/// The one door on `board`, telling `publisher`, saving with `persister` (or into `store`).
public func makeIntake<C: Clock>(_ board: PriceBoard<C>, publisher: WatchPublisher<C>, health: DaemonHealth<C>? = nil,
                                 store: any QuoteStore = RecordingStore(), persister: QuotePersister? = nil,
                                 streamGate: StreamGate<C.Instant> = .closed, logger: Logger = Logger(label: "btcpriced")) -> PriceIntake<C> {
    PriceIntake(board: board,
                followers: [publisher,
                            StatusFollower(health: health ?? DaemonHealth(notifier: RecordingNotifier(), watchdogInterval: nil, clock: board.clock),
                                           board: board),
                            persister ?? QuotePersister(store: store, work: TestWork(), minimumInterval: .zero, logger: logger),
                            FirstQuoteLog(logger: logger)],
                streamGate: streamGate, logger: logger)
}

extension PriceIntake {
    /// `quote` as one streamed trade that the order rule admits, stamped now; returns whether
    /// watchers see a change.
    @discardableResult
    public func stream(_ quote: Quote) -> Bool {
        accept([.trade(SourceQuote(price: quote.price, symbol: quote.symbol, quoteAsset: quote.currency), nil)], from: quote.source) { _ in true }.watchersSee
    }

    /// A venue's 24 h figures, as its stream sends them; returns whether watchers see a change.
    @discardableResult
    public func dayRange(_ day: DayRange, from venue: SourceName) -> Bool {
        accept([.dayRange(day)], from: venue) { _ in true }.watchersSee
    }

    /// `quote` as a fetch cycle's quote, fresh, with no failures; returns whether watchers see a change.
    @discardableResult
    public func poll(_ quote: Quote?, failureSummary: String? = nil) -> Bool {
        accept(CycleReport(reading: quote.map(PolledReading.init(dated:)), failureSummary: failureSummary, nextCycleIn: .seconds(1))).watchersSee
    }
}

extension PolledReading {
    /// `quote` as one venue's answer, dated by its venue at the quote's timestamp.
    public init(dated quote: Quote) {
        self.init(price: quote.price, currency: quote.currency, symbol: quote.symbol, source: quote.source,
                  origins: [AnswerOrigin(time: quote.timestamp)])
    }
}

/// A binance BTCUSDT quote at `price`, a literal the test writes: one that is not a price is a
/// bug in the test, so it stops the test run rather than being handled.
public func quote(_ price: String, at milliseconds: Int64 = 1_763_740_800_000) -> Quote {
    // Forced: the literal is the test's own, never outside input; a bad one is a bug in that test.
    Quote(price: try! Price(parsing: price), currency: "USDT", symbol: "BTCUSDT", source: .binance,
          timestamp: Timestamp(millisecondsSinceEpoch: milliseconds))
}

extension WatchAudience {
    /// An audience of `count` watchers, as the listeners would count them.
    public static func watched(by count: Int = 1) -> WatchAudience {
        let audience = WatchAudience()
        for _ in 0..<count { audience.joined() }
        return audience
    }
}
