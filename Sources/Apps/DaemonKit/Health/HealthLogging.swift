import Logging
import PriceCore

/// Turns health transitions into log lines: one when something breaks, one when it heals.
public enum HealthLogging {
    /// A cycle's events, in order, except that venues failing together behind one proxy that is
    /// down get one line naming the proxy and what to check, not one line each.
    public static func log(_ events: [HealthEvent], report: CycleReport, hasQuote: Bool, maximumBackoff: Duration, plan: some ChainPlan, logger: Logger) {
        var behindDownProxy: [FetchFailure: [SourceName]] = [:]
        for event in events {
            if case .sourceFailing(let source, let failure) = event, case .proxy(let trouble) = failure, trouble.isProxyDown {
                behindDownProxy[failure, default: []].append(source)
            }
        }
        var told: Set<FetchFailure> = []
        for event in events {
            if case .sourceFailing(_, let failure) = event, let sources = behindDownProxy[failure], sources.count > 1 {
                guard told.insert(failure).inserted else { continue }
                let names = sources.map(\.rawValue)
                logger.warning("\(failure); \(names.joined(separator: ", ")) cannot be reached through it",
                               metadata: ["source": "\(names.joined(separator: ","))", "error": "\(failure)", "message_id": "\(MessageID.sourceFailing)"])
                continue
            }
            log(event, report: report, hasQuote: hasQuote, maximumBackoff: maximumBackoff, plan: plan, logger: logger)
        }
    }

    /// `plan` gives the venue's own advice; `hasQuote`: whether the daemon has any quote (restored or fetched) to serve meanwhile;
    /// `maximumBackoff`: the loop's cap (lower than 30 s when the watchdog needs it).
    public static func log(_ event: HealthEvent, report: CycleReport, hasQuote: Bool, maximumBackoff: Duration, plan: some ChainPlan, logger: Logger) {
        switch event {
        case .sourceFailing(let source, let failure):
            logger.warning("\(source) is failing: \(failure)\(plan.hint(for: source, failure: failure))",
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
            logger.notice("\(source) is near its rate limit\(plan.nearRateLimitAdvice(for: source)); not asking it for \(pause.humanReadable)",
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
