import PriceCore
import WireProtocol

/// What the socket answers: the board's lines, the `sources` report (the configured chain and
/// the ledger) and the metrics exposition, which the metrics adapter renders from the board.
/// They serve what the board holds; catching a paced stream up first is the adapters' business.
public final class DaemonReplies<C: Clock, Plan: ChainPlan>: StatusProvider where C.Duration == Duration {
    /// Renders the metrics exposition with the families read off the board at each scrape:
    /// the quote (exact), the freshness state, the configured currency and the host clock's
    /// offset from the venues' (nil before any direct answer).
    public typealias Exposition = @Sendable (_ quote: Quote?, _ state: FreshnessState, _ currency: String, _ clockOffset: Duration?) -> String

    public let board: PriceBoard<C>
    public let directory: SourceDirectory<Plan, C.Instant>
    private let exposition: Exposition
    private let hostClock: HostClockWatch<C>?

    public init(board: PriceBoard<C>, directory: SourceDirectory<Plan, C.Instant>, hostClock: HostClockWatch<C>? = nil, exposition: @escaping Exposition) {
        self.board = board
        self.hostClock = hostClock
        self.directory = directory
        self.exposition = exposition
    }

    public func statusReply() -> String { board.statusReply() }

    public func priceReply() -> String { board.priceReply() }

    public func historyReply(_ query: HistoryQuery) -> String { board.historyReply(query) }

    public func dailyReply(_ query: DailyQuery) -> String { board.dailyReply(query) }

    public func status() -> StatusMessage { board.status() }

    public func history(_ query: HistoryQuery) -> HistoryReply { board.history(query) }

    public func daily(_ query: DailyQuery) -> DailyReply { board.daily(query) }

    public func price(at query: PriceAtQuery) -> PriceAtReply { board.price(at: query) }

    /// One currency: this board's.
    public var servedCurrencies: [String] { [board.currency] }

    /// These replies, when `currency` is this board's.
    public func replies(for currency: String) -> (any StatusProvider)? { currency == board.currency ? self : nil }

    public func sourcesReport() -> String { sources().line }

    public func sources() -> SourcesReport {
        var report = directory.report(at: board.clock.now)
        // While trades stream, the streaming venue's last price is its newest trade, not its
        // last REST answer.
        if board.stateKey.transport == .stream, let quote = board.quote,
           let row = report.entries.firstIndex(where: { $0.name == quote.source.rawValue }) {
            report.entries[row].lastPrice = quote.price.description
            report.entries[row].lastPriceAt = quote.timestamp.rfc3339
        }
        return report
    }

    public func metricsReply() -> String {
        exposition(board.quote, board.freshness().state, board.currency, hostClock?.estimate)
    }
}
