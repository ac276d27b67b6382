import JSONText
import PriceCore
import WireProtocol

/// The stubs of these tests hold reply lines; their values are those lines read back (a test's
/// own shortcut: the daemon's replies make each value from the board, never from a line).
extension StatusProvider {
    func status() -> StatusMessage {
        (try? JSONValue(parsing: statusReply())).flatMap { try? StatusMessage(json: $0) }
            ?? StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata, lastError: nil, version: "test")
    }

    func sources() -> SourcesReport {
        (try? JSONValue(parsing: sourcesReport())).flatMap { try? SourcesReport(json: $0) } ?? SourcesReport(mode: "fallback", entries: [])
    }

    func daily(_ query: DailyQuery) -> DailyReply {
        (try? JSONValue(parsing: dailyReply(query))).flatMap { try? DailyReply(json: $0) } ?? DailyReply(currency: "USD", days: [])
    }

    /// These stubs keep no minutes: every moment is one without a price.
    func price(at query: PriceAtQuery) -> PriceAtReply { PriceAtReply(at: query.seconds, currency: "USD", missing: .gap, reason: "the stub keeps no history") }

    /// These stubs serve USD, the default currency.
    var servedCurrencies: [String] { ["USD"] }
    func replies(for currency: String) -> (any StatusProvider)? { currency == "USD" ? self : nil }

    func history(_ query: HistoryQuery) -> HistoryReply {
        (try? JSONValue(parsing: historyReply(query))).flatMap { try? HistoryReply(json: $0) } ?? HistoryReply(range: query.range, points: [])
    }
}
