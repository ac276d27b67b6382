import PriceCore

/// A venue's source behind its Tor circuit (`VenueCircuits`): a blocked exit's answer (a
/// challenge page, HTTP 403 or 451) renews the circuit and is not yet a reason to rest, so the
/// next attempt goes out through another exit; a second one in a row rests the venue as usual.
public struct CircuitSource: PriceSource {
    let source: any PriceSource
    let circuits: VenueCircuits

    public init(_ source: any PriceSource, circuits: VenueCircuits) {
        self.source = source
        self.circuits = circuits
    }

    public var name: SourceName { source.name }
    public var quoteAsset: String { source.quoteAsset }
    public var limits: SourceLimits { source.limits }
    public var attemptLimit: AttemptLimit? { source.attemptLimit }
    public var proxy: String? { source.proxy }

    public func fetchQuote() async throws -> SourceQuote {
        do {
            let quote = try await source.fetchQuote()
            circuits.answered(name)
            return quote
        } catch let failure as FetchFailure where failure.isBlockedExit && circuits.renewOnce(name) {
            throw FetchFailure.newCircuit(after: failure.description)
        } catch FetchFailure.proxy(let trouble) {
            // The relay's SOCKS reply could only say "refused" or "general failure"; the relay
            // knows whether it was the proxy, and how.
            guard let kind = circuits.takeProxyFailure(name) else { throw FetchFailure.proxy(trouble) }
            throw FetchFailure.proxy(ProxyTrouble(kind, proxy: trouble.proxy, isSOCKS: trouble.isSOCKS))
        }
    }
}

extension FetchFailure {
    /// What a Tor exit that a venue blocks gets: a challenge page, 403 or 451.
    var isBlockedExit: Bool {
        switch self {
        case .htmlPage, .geoRestricted, .httpStatus(403): true
        default: false
        }
    }
}
