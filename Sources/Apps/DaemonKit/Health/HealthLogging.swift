import Logging
import PriceCore

/// What only the composition root knows for log lines: how to fix a venue's failure, and what
/// its rate-limit pause means. Venues and settings are not DaemonKit's business.
public struct OperatorHints: Sendable {
    /// Appended to a failure's warning: what to do, and how long the venue rests.
    public var failure: @Sendable (SourceName, FetchFailure) -> String
    /// Appended to "… is near its rate limit": whose limit, and how far.
    public var nearRateLimit: @Sendable (SourceName) -> String

    public init(failure: @escaping @Sendable (SourceName, FetchFailure) -> String = { _, _ in "" },
                nearRateLimit: @escaping @Sendable (SourceName) -> String = { _ in "" }) {
        self.failure = failure
        self.nearRateLimit = nearRateLimit
    }
}

/// Turns health transitions into log lines: one when something breaks, one when it heals.
public enum HealthLogging {
    /// `hasQuote`: whether the daemon has any quote (restored or fetched) to serve meanwhile;
    /// `maximumBackoff`: the loop's cap (lower than 30 s when the watchdog needs it).
    public static func log(_ event: HealthEvent, report: CycleReport, hasQuote: Bool, maximumBackoff: Duration, hints: OperatorHints, logger: Logger) {
        switch event {
        case .sourceFailing(let source, let failure):
            logger.warning("\(source) is failing: \(failure)\(hints.failure(source, failure))",
                           metadata: ["source": "\(source)", "error": "\(failure)", "message_id": "\(MessageID.sourceFailing)"])
        case .sourceRecovered(let source, let failedCycles):
            logger.info("\(source) recovered after \(failedCycles) failed \(failedCycles == 1 ? "attempt" : "attempts")",
                        metadata: ["source": "\(source)", "message_id": "\(MessageID.sourceRecovered)"])
        case .allSourcesFailing:
            logger.warning("no source returned a price; \(hasQuote ? "serving the last known quote" : "no quote to serve yet") and retrying with backoff (up to \(maximumBackoff.humanReadable))",
                           metadata: ["error": "\(report.failureSummary ?? "unknown")"])
        case .quotesFlowingAgain:
            if let reading = report.reading {
                logger.info("quotes flowing again: \(reading.price) \(reading.currency) via \(reading.source)",
                            metadata: ["source": "\(reading.source)", "price": "\(reading.price)", "currency": "\(reading.currency)", "symbol": "\(reading.symbol)"])
            }
        case .sourceNearRateLimit(let source, let pause):
            logger.notice("\(source) is near its rate limit\(hints.nearRateLimit(source)); not asking it for \(pause.humanReadable)",
                          metadata: ["source": "\(source)"])
        case .sourceOutlier(let source, let price, let median):
            logger.warning("\(source) is an outlier: \(price) is too far from the median \(median); leaving it out of the consensus while it stays one",
                           metadata: ["source": "\(source)", "price": "\(price)"])
        case .sourceAgreesAgain(let source):
            logger.info("\(source) agrees with the other sources again", metadata: ["source": "\(source)"])
        case .tooFewAgree(let agreeing, let required):
            logger.warning("no consensus: \(agreeing) source(s) agree, BTCPRICED_CONSENSUS_MIN requires \(required); serving the last quote as it ages",
                           metadata: ["error": "\(report.failureSummary ?? "no consensus")"])
        }
    }
}
