import FoundationEssentials

/// The configured chain as the daemon's logic sees it: which venues are asked and how, how
/// fresh a quote must be, what the `sources` report lists, and what to tell the operator about
/// a venue. The configuration's plan conforms to it; a reload hands the daemon a new one.
public protocol ChainPlan: Sendable {
    /// The sources asked, in order, with their quote assets and limits.
    var descriptors: [SourceDescriptor] { get }
    var mode: FetchMode { get }
    /// How `btcctl sources` names the mode: `fallback`, `consensus`.
    var modeName: String { get }
    var interval: Duration { get }
    var timeout: Duration { get }
    /// The configured currency's ISO 4217 code.
    var currency: String { get }
    var stalenessPolicy: StalenessPolicy { get }
    /// BTCPRICED_CONFIRM_MOVE as a fraction: a larger move from a recent quote waits for a
    /// second venue (`PriceCheck`). Nil when off.
    var confirmMove: Decimal? { get }
    /// How long a live stream may carry no price before REST refreshes the quote.
    var priceSilenceAfter: Duration { get }
    /// Every configured source, in order, asked or not.
    var configured: [SourceName] { get }
    /// The rows of the configured sources that are not asked, and why.
    var skippedStatuses: [SourceStatus] { get }
    /// How a source's requests leave (credentials masked); nil for one not configured.
    func route(of name: SourceName) -> String?
    /// Appended to a venue's failure warning: what to do, and how long the venue rests.
    func hint(for source: SourceName, failure: FetchFailure) -> String
    /// Appended to "… is near its rate limit": whose limit, and how far.
    func nearRateLimitAdvice(for source: SourceName) -> String
}
