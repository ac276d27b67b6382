import PriceCore
import WireProtocol

/// The answers of a daemon that serves several currencies: the primary's for every request that
/// names none (as protocol 1 asks), and each companion's for its own code (`price EUR`).
public struct CurrencyReplies: StatusProvider {
    private let primary: any StatusProvider
    /// By ISO 4217 code, in the order served.
    private let companions: [(code: String, replies: any StatusProvider)]

    public init(primary: any StatusProvider, companions: [(code: String, replies: any StatusProvider)]) {
        self.primary = primary
        self.companions = companions
    }

    public var servedCurrencies: [String] { primary.servedCurrencies + companions.map(\.code) }

    public func replies(for currency: String) -> (any StatusProvider)? {
        primary.replies(for: currency) ?? companions.first { $0.code == currency }?.replies
    }

    public func statusReply() -> String { primary.statusReply() }
    public func priceReply() -> String { primary.priceReply() }
    public func sourcesReport() -> String { primary.sourcesReport() }
    public func historyReply(_ query: HistoryQuery) -> String { primary.historyReply(query) }
    public func dailyReply(_ query: DailyQuery) -> String { primary.dailyReply(query) }
    public func metricsReply() -> String { primary.metricsReply() }
    public func firstWatchLine() -> String { primary.firstWatchLine() }
    public func status() -> StatusMessage { primary.status() }
    public func sources() -> SourcesReport { primary.sources() }
    public func history(_ query: HistoryQuery) -> HistoryReply { primary.history(query) }
    public func daily(_ query: DailyQuery) -> DailyReply { primary.daily(query) }
    public func price(at query: PriceAtQuery) -> PriceAtReply { primary.price(at: query) }
}
