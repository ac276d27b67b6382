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

    func history(_ query: HistoryQuery) -> HistoryReply {
        (try? JSONValue(parsing: historyReply(query))).flatMap { try? HistoryReply(json: $0) } ?? HistoryReply(range: query.range, points: [])
    }
}
