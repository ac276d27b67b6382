import Logging
import PriceCore

/// Turns health transitions into log lines: one when something breaks, one when it heals.
enum HealthLogging {
    static func log(_ event: HealthEvent, report: CycleReport, logger: Logger) {
        switch event {
        case .sourceFailing(let source, let failure):
            logger.warning("\(source) is failing: \(failure)\(hint(for: source, failure))",
                           metadata: ["source": "\(source)", "error": "\(failure)", "message_id": "\(MessageID.sourceFailing)"])
        case .sourceRecovered(let source, let failedCycles):
            logger.info("\(source) recovered after \(failedCycles) failed \(failedCycles == 1 ? "attempt" : "attempts")",
                        metadata: ["source": "\(source)", "message_id": "\(MessageID.sourceRecovered)"])
        case .allSourcesFailing:
            logger.warning("no source returned a price; serving the last known quote and retrying with backoff (up to 30s)",
                           metadata: ["error": "\(report.failureSummary ?? "unknown")"])
        case .quotesFlowingAgain:
            if let quote = report.quote {
                logger.info("quotes flowing again: \(quote.price) \(quote.currency) via \(quote.source)",
                            metadata: ["source": "\(quote.source)", "price": "\(quote.price)"])
            }
        }
    }

    /// What the operator can do about a failure, where there is something to do.
    static func hint(for source: SourceName, _ failure: FetchFailure) -> String {
        switch failure {
        case .geoRestricted where source == .binance:
            "; Binance refuses this location. Set BTCPRICED_BINANCE_URL=https://api.binance.us, or remove binance from BTCPRICED_SOURCES. Not asking it again for 5m"
        case .geoRestricted:
            "; the exchange refuses this location. Not asking it again for 5m"
        case .rateLimited(let retryAfter?):
            "; not asking it again for \(retryAfter.humanReadable)"
        case .wrongSymbol where source == .binance:
            "; check BTCPRICED_BINANCE_SYMBOL"
        default:
            ""
        }
    }
}
