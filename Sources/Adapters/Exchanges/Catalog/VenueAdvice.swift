import PriceCore

/// What an operator can do about a venue's failures, where it is particular to the venue.
public struct VenueAdvice: Sendable {
    /// The hint for `failure`, from "; " on; nil to use the one any venue gets.
    public let failure: @Sendable (FetchFailure) -> String?
    /// Why the venue rests when it says it is near its rate limit (" (…)"), or "".
    public let nearRateLimit: String

    public init(failure: @escaping @Sendable (FetchFailure) -> String? = { _ in nil }, nearRateLimit: String = "") {
        self.failure = failure
        self.nearRateLimit = nearRateLimit
    }
}

extension Venue {
    /// What the operator can do about `failure`, where there is something to do, and how long
    /// the venue rests (`FetchFailure.cooldown` says it once): the entry's own advice first,
    /// then what its settings and any venue's failure suggest.
    public func hint(for failure: FetchFailure) -> String {
        let rest = failure.cooldown.map { ". Not asking it again for \($0.humanReadable)" } ?? ""
        if let own = advice.failure(failure) { return own + rest }
        switch failure {
        case .unauthorized:
            guard let apiKey, let fileKey = apiKey.fileKey, let credential = apiKey.credential else { return "" }
            return "; check the key in \(fileKey) (or the credential \(credential))" + rest
        case .geoRestricted:
            return "; the exchange refuses this location" + rest
        case .htmlPage:
            return "; through a proxy or Tor, another exit (a new circuit) or another source may get JSON" + rest
        case .rateLimited:
            return failure.cooldown.map { "; not asking it again for \($0.humanReadable)" } ?? ""
        case .wrongSymbol:
            return settings.first { $0.kind == .symbol }.map { "; check \($0.key)" } ?? ""
        default:
            return ""
        }
    }
}
