import WireProtocol

/// The daemon's answers to the protocol's requests, as both listeners serve them (the socket
/// one line each, HTTP as a body): a port of the core the app implements, so no listener
/// needs another to know it.
/// Answered on an event loop: keep it cheap. Each is one reply line, newline included.
public protocol StatusProvider: Sendable {
    /// The `status` reply, and the first line of a `watch` stream.
    func statusReply() -> String
    /// The `price` reply: the price, or the nodata error.
    func priceReply() -> String
    /// The `sources` reply.
    func sourcesReport() -> String
    /// The `history` reply.
    func historyReply(_ query: HistoryQuery) -> String
    /// The `history daily [SINCE]` reply.
    func dailyReply(_ query: DailyQuery) -> String
    /// The `metrics` reply: the Prometheus text exposition.
    func metricsReply() -> String
    /// A `watch` stream's first line: the status, as a watcher joins.
    func firstWatchLine() -> String
    /// The status as a value, for the answers that show parts of it (the dashboard, the price
    /// route, the compatible shapes): made from the board, never parsed back from a line.
    func status() -> StatusMessage
    /// The `sources` report as a value, for the dashboard.
    func sources() -> SourcesReport
    /// The `history` reply as a value, for the dashboard's chart.
    func history(_ query: HistoryQuery) -> HistoryReply
    /// The `history daily` reply as a value, for mempool's historical series.
    func daily(_ query: DailyQuery) -> DailyReply
    /// The price at a moment (`history at`, mempool's historical price), from the history kept.
    func price(at query: PriceAtQuery) -> PriceAtReply
    /// Every currency served, the primary first (ISO 4217 codes).
    var servedCurrencies: [String] { get }
    /// The replies in `currency` (upper case), when it is served; nil when it is not.
    func replies(for currency: String) -> (any StatusProvider)?
}

extension StatusProvider {
    public func firstWatchLine() -> String { statusReply() }
    /// The `history at` reply.
    public func priceAtReply(_ query: PriceAtQuery) -> String { price(at: query).line }

    /// The `currencies` reply: each currency's status, the primary first.
    public func currenciesReply() -> String {
        CurrenciesReply(entries: servedCurrencies.compactMap { code in replies(for: code).map { .init(code: code, status: $0.status()) } }).line
    }
}
