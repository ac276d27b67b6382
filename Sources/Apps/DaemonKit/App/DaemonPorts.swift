import CoreMetrics
import Logging
import PriceCore
import WireProtocol

/// What the daemon is made of, handed over by the composition root: production wires the
/// event loop's clock, the venues over HTTPS, the state directory's files, the socket and
/// systemd; tests wire a ManualClock, scripted sources, memory or temporary files and a recorder.
public struct DaemonPorts<C: Clock, Plan: ChainPlan>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public var clock: C
    public var wallClock: any WallClock
    /// The configured chain, with the ledger of every venue's health, rests and budget.
    public var directory: SourceDirectory<Plan, C.Instant>
    /// The venues a plan asks; called again with each plan a reload brings.
    public var sources: @Sendable (Plan) -> [any PriceSource]
    /// The candles a plan may fill the history's gaps from, in chain order; nil: no backfill
    /// (BTCPRICED_BACKFILL=off).
    public var candleSources: (@Sendable (Plan) -> [any CandleSource])?
    /// Gives the heap's free memory back to the system (glibc's `malloc_trim`): called once the
    /// saved files are read and once the backfill is done, whose reading (a week of minutes, ten
    /// years of days, a week of candles as 1.6 MB of JSON) would otherwise stay in the daemon's
    /// resident memory for good.
    public var returnFreedMemory: @Sendable () -> Void = {}
    public var quoteStore: any QuoteStore
    public var historyStore: any HistoryStore
    /// Where ten years of daily bars are kept; nil: none are.
    public var dailyStore: (any DailyStore)?
    public var restraintStore: any RestraintStore
    /// Starts serving the socket with the daemon's replies.
    public var serve: @Sendable (DaemonReplies<C, Plan>) async throws -> any WatcherServer
    /// Renders the metrics exposition for the replies.
    public var exposition: DaemonReplies<C, Plan>.Exposition
    public var notifier: any HealthNotifier
    public var watchdogInterval: Duration?
    public var logger: Logger
    /// For ServiceLifecycle's own messages.
    public var serviceLogger: Logger
    /// Called once the socket serves the restored quote, before the first fetch and READY=1.
    public var onReady: @Sendable (DaemonStatus) -> Void = { _ in }
    /// The least time between two writes of quote.json (a clean stop always writes the last).
    public var persistInterval: Duration
    /// `watch` subscribers get at most one line per this interval.
    public var publishInterval: Duration = .zero
    /// Who watches, as the listeners count them (the publisher sends nothing to nobody).
    public var audience = WatchAudience()
    /// The venues BTCPRICED_STREAM allows, in the chain's order; none when no venue can stream.
    public var streams: [StreamVenue] = []
    /// The longest a streamed trade may wait unread (zero when every message is read as it
    /// comes). The quote is called stale only this long after its age crosses the limit, by
    /// which time the stream has read whatever it held.
    public var streamReadLag: Duration = .zero
    /// Where the streams' links count connections (`btcpriced_stream_connected`, reconnects).
    public var streamMetrics: any MetricsFactory = MetricsSystem.factory
    /// The venues' pace shared with the other instances on this host, if any.
    public var hostPace: (any HostPace)?
    public var jitter: any JitterSource = SystemJitter()
    /// Where blocking file writes run.
    public var work: any BlockingWork
    /// Where the services run (the daemon's event loop in production).
    public var executor: (any TaskExecutor)?
    /// Hears every fetch cycle after the daemon has handled it (tests step the clock on it).
    public var cycleHandled: @Sendable (CycleReport) -> Void = { _ in }

    public init(clock: C, wallClock: any WallClock, directory: SourceDirectory<Plan, C.Instant>, sources: @escaping @Sendable (Plan) -> [any PriceSource],
                quoteStore: any QuoteStore, historyStore: any HistoryStore, restraintStore: any RestraintStore,
                serve: @escaping @Sendable (DaemonReplies<C, Plan>) async throws -> any WatcherServer,
                exposition: @escaping DaemonReplies<C, Plan>.Exposition, notifier: any HealthNotifier, watchdogInterval: Duration?,
                logger: Logger, serviceLogger: Logger, persistInterval: Duration, work: any BlockingWork) {
        self.clock = clock
        self.wallClock = wallClock
        self.directory = directory
        self.sources = sources
        self.quoteStore = quoteStore
        self.historyStore = historyStore
        self.restraintStore = restraintStore
        self.serve = serve
        self.exposition = exposition
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
        self.logger = logger
        self.serviceLogger = serviceLogger
        self.persistInterval = persistInterval
        self.work = work
    }
}
