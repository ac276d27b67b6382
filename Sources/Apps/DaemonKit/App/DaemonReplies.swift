import PriceCore
import WireProtocol

/// What the socket answers: the board's lines, the `sources` report (the configured chain and
/// the ledger) and the metrics exposition, which the metrics adapter renders from the board.
/// Each reply first catches the stream up, so it is never more than one publish interval
/// behind the wire, even while nobody watches and the stream is read less often.
public final class DaemonReplies<C: Clock, Plan: ChainPlan>: Sendable where C.Duration == Duration {
    /// Renders the metrics exposition with the families read off the board at each scrape:
    /// the quote (exact), the freshness state, the configured currency and the host clock's
    /// offset from the venues' (nil before any direct answer).
    public typealias Exposition = @Sendable (_ quote: Quote?, _ state: FreshnessState, _ currency: String, _ clockOffset: Duration?) -> String

    public let board: PriceBoard<C>
    public let directory: SourceDirectory<Plan, C.Instant>
    private let exposition: Exposition
    private let backlog: (any StreamBacklog)?
    private let hostClock: HostClockWatch<C>?

    public init(board: PriceBoard<C>, directory: SourceDirectory<Plan, C.Instant>, backlog: (any StreamBacklog)? = nil,
                hostClock: HostClockWatch<C>? = nil, exposition: @escaping Exposition) {
        self.board = board
        self.hostClock = hostClock
        self.directory = directory
        self.backlog = backlog
        self.exposition = exposition
    }

    public func statusReply() -> String {
        backlog?.catchUp()
        return board.statusReply()
    }

    /// A `watch` stream's first line; from now on the stream is read once per publish interval.
    public func firstWatchLine() -> String {
        backlog?.watcherJoins()
        return board.statusReply()
    }

    public func priceReply() -> String {
        backlog?.catchUp()
        return board.priceReply()
    }

    public func historyReply(_ query: HistoryQuery) -> String {
        backlog?.catchUp()
        return board.historyReply(query)
    }

    /// Days do not depend on the latest trade: nothing to catch up.
    public func dailyReply(_ query: DailyQuery) -> String { board.dailyReply(query) }

    public func sourcesReport() -> String {
        backlog?.catchUp()
        var report = directory.report(at: board.clock.now)
        // While trades stream, the streaming venue's last price is its newest trade, not its
        // last REST answer.
        if board.stateKey.transport == .stream, let quote = board.quote,
           let row = report.entries.firstIndex(where: { $0.name == quote.source.rawValue }) {
            report.entries[row].lastPrice = quote.price.description
            report.entries[row].lastPriceAt = quote.timestamp.rfc3339
        }
        return report.line
    }

    public func metricsReply() -> String {
        backlog?.catchUp()
        return exposition(board.quote, board.freshness().state, board.currency, hostClock?.estimate)
    }
}
