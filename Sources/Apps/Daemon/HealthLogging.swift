import DaemonKit
import DaemonConfig
import Exchanges
import Logging
import PriceCore

/// Turns health transitions into log lines: one when something breaks, one when it heals.
enum HealthLogging {
    /// `hasQuote`: whether the daemon has any quote (restored or fetched) to serve meanwhile;
    /// `maximumBackoff`: the loop's cap (lower than 30 s when the watchdog needs it).
    static func log(_ event: HealthEvent, report: CycleReport, hasQuote: Bool, maximumBackoff: Duration, logger: Logger) {
        switch event {
        case .sourceFailing(let source, let failure):
            logger.warning("\(source) is failing: \(failure)\(hint(for: source, failure))",
                           metadata: ["source": "\(source)", "error": "\(failure)", "message_id": "\(MessageID.sourceFailing)"])
        case .sourceRecovered(let source, let failedCycles):
            logger.info("\(source) recovered after \(failedCycles) failed \(failedCycles == 1 ? "attempt" : "attempts")",
                        metadata: ["source": "\(source)", "message_id": "\(MessageID.sourceRecovered)"])
        case .allSourcesFailing:
            logger.warning("no source returned a price; \(hasQuote ? "serving the last known quote" : "no quote to serve yet") and retrying with backoff (up to \(maximumBackoff.humanReadable))",
                           metadata: ["error": "\(report.failureSummary ?? "unknown")"])
        case .quotesFlowingAgain:
            if let quote = report.quote {
                logger.info("quotes flowing again: \(quote.price) \(quote.currency) via \(quote.source)",
                            metadata: ["source": "\(quote.source)", "price": "\(quote.price)", "currency": "\(quote.currency)", "symbol": "\(quote.symbol)"])
            }
        case .sourceNearRateLimit(let source, let pause):
            logger.notice("\(source) is near its rate limit (request weight used this minute is over \(BinanceAPI.weightPauseThreshold) of \(BinanceAPI.weightLimitPerMinute), shared by everything on this IP); not asking it for \(pause.humanReadable)",
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

    /// What the operator can do about a failure, where there is something to do, and how long
    /// the source rests (`FetchFailure.cooldown` says it once).
    static func hint(for source: SourceName, _ failure: FetchFailure) -> String {
        let rest = failure.cooldown.map { ". Not asking it again for \($0.humanReadable)" } ?? ""
        return switch failure {
        case .geoRestricted where source == Venue.binance.name:
            "; Binance refuses this location, so the next sources in BTCPRICED_SOURCES are used. To stop asking it, set BTCPRICED_SOURCES=coinbase,kraken,bitstamp (or \(SettingKey.restURL(.binance))=https://api.binance.us)" + rest
        case .unauthorized where source == Venue.cryptocompare.name:
            "; check the key in \(SettingKey.cryptoCompareAPIKeyFile) (or the credential \(APIKeyResolver.credentialName))" + rest
        case .geoRestricted:
            "; the exchange refuses this location" + rest
        case .rateLimited:
            failure.cooldown.map { "; not asking it again for \($0.humanReadable)" } ?? ""
        case .wrongSymbol where source == Venue.binance.name:
            "; check \(SettingKey.binanceSymbol)"
        default:
            ""
        }
    }
}

enum SourcePlanLogging {
    /// One notice per configured source that is skipped, naming what would enable it.
    static func logSkipped(_ plan: SourcePlan, logger: Logger) {
        for skipped in plan.skipped {
            logger.notice("\(skipped.venue) is skipped: \(skipped.reason)", metadata: ["source": "\(skipped.venue)"])
        }
    }
}
