import DaemonConfig
import DaemonKit
import Exchanges
import Logging
import PriceCore

/// The operator hints for the venues in the catalog and the settings that steer them.
enum VenueHints {
    static let operatorHints = OperatorHints(failure: hint(for:_:), nearRateLimit: { source in
        source != Venue.binance.name ? "" : " (request weight used this minute is over \(BinanceAPI.weightPauseThreshold) of \(BinanceAPI.weightLimitPerMinute), shared by everything on this IP)"
    })

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
        case .htmlPage:
            "; through a proxy or Tor, another exit (a new circuit) or another source may get JSON" + rest
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
        if let advice = plan.staleAfterAdvice { logger.notice("\(advice)") }
    }
}
