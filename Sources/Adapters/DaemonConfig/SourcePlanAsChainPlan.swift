import Exchanges
import Logging
import PriceCore
import WireProtocol

/// The plan as the daemon's logic sees it; the catalog entries give their own advice.
extension SourcePlan: ChainPlan {
    public var modeName: String { settings.mode.rawValue }
    public var interval: Duration { settings.interval }
    public var timeout: Duration { longestTimeout }
    public var currency: String { settings.currency.code }
    /// BTCPRICED_SOURCES, then the reference rate when it stands in for a missing market.
    public var configured: [SourceName] { settings.sources + (referenceReason == nil ? [] : active.map(\.name)) }

    public func hint(for source: SourceName, failure: FetchFailure) -> String {
        settings.catalog.named(source)?.hint(for: failure) ?? ""
    }

    public func nearRateLimitAdvice(for source: SourceName) -> String {
        settings.catalog.named(source)?.advice.nearRateLimit ?? ""
    }

    /// The line a start logs once it serves: where, how it asks which venues how often,
    /// which venues it streams from, and where its state lives.
    public func servingLine(on listener: String, streams: [SourceName]) -> String {
        let streaming = streams.isEmpty ? "" : "; streaming from \(streams.map(\.rawValue).joined(separator: " or ")) while a stream is healthy"
        return "btcpriced \(ProductVersion.current) serving on \(listener); \(settings.mode.rawValue) over \(active.map(\.name.rawValue).joined(separator: ", ")) every \(settings.interval.humanReadable)\(streaming); state in \(settings.stateDirectory)"
    }

    /// One notice per skipped venue, naming what would enable it, and the freshness advice.
    public func logNotices(_ logger: Logger) {
        for notice in notices {
            logger.notice("\(notice.text)", metadata: notice.venue.map { ["source": "\($0)"] } ?? [:])
        }
    }
}
