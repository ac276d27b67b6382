import FoundationEssentials
import Exchanges
import PriceCore
import WireProtocol

/// Which configured venues the daemon asks, which it skips and why, and what each is allowed.
public struct SourcePlan: Sendable {
    public struct Skipped: Sendable {
        public let venue: Venue
        public let reason: String
        /// No market in the currency, rather than set aside by a setting.
        public var unsupported = false
    }

    public let settings: DaemonSettings
    /// The market choices every request is built from, made once per plan.
    public let options: VenueOptions
    public let active: [Venue]
    public let skipped: [Skipped]
    /// Why the chain is a reference rate the user did not name: no market btcpriced knows
    /// trades BTC in the currency. Nil when the chain is the user's.
    public let referenceReason: String?

    /// Why a venue that needs an API key is skipped without one.
    static func noKeyReason(_ setting: VenueSetting) -> String {
        "no API key: set \(setting.fileKey ?? setting.key)" + (setting.credential.map { " (or the systemd credential \($0))" } ?? "")
    }

    /// Throws when nothing usable is left, so the daemon does not start (or reload) into a
    /// configuration that can never produce a quote.
    public init(_ settings: DaemonSettings) throws(ConfigError) {
        self.settings = settings
        let options = settings.venueOptions
        self.options = options
        var active: [Venue] = [], skipped: [Skipped] = []
        let currency = settings.currency.code
        if let problem = settings.stream.problem(currency: currency, catalog: settings.catalog) { throw ConfigError(problem) }
        for name in settings.sources {
            guard let venue = settings.venue(named: name) else { continue }
            if !venue.quotes(currency) {
                skipped.append(Skipped(venue: venue, reason: "no BTC/\(currency) market (it quotes \(venue.currencies.joined(separator: ", ")))", unsupported: true))
            } else if let key = venue.apiKey, !settings.hasKey(for: venue) {
                skipped.append(Skipped(venue: venue, reason: Self.noKeyReason(key)))
            } else if settings.mode == .consensus, !settings.consensusIncludesUSDT, venue.quoteAsset(options) != currency {
                let asset = venue.quoteAsset(options)
                skipped.append(Skipped(venue: venue, reason: "quotes \(asset), not \(currency): set BTCPRICED_CONSENSUS_USDT=yes to count it in the consensus"))
            } else {
                active.append(venue)
            }
        }
        var referenceReason: String?
        if active.isEmpty, skipped.allSatisfy(\.unsupported), settings.catalog.markets(for: currency).isEmpty,
           let reference = settings.catalog.reference(for: currency) {
            active = [reference]
            referenceReason = "no market btcpriced knows trades BTC/\(currency): \(currency) comes from \(reference.name), "
                + "a reference rate (a conversion, not a trade) served under that name"
        }
        self.active = active
        self.skipped = skipped
        self.referenceReason = referenceReason
        if active.isEmpty, skipped.allSatisfy(\.unsupported) {
            let quoting = settings.catalog.markets(for: currency).map(\.name.rawValue)
            throw ConfigError("no venue in BTCPRICED_SOURCES (\(settings.sources.map(\.rawValue).joined(separator: ","))) has a BTC/\(currency) market"
                + (quoting.isEmpty ? "; no venue btcpriced knows quotes \(currency): choose another BTCPRICED_CURRENCY"
                    : "; venues that quote \(currency): \(quoting.joined(separator: ", ")). Set BTCPRICED_SOURCES=\(quoting.joined(separator: ","))"))
        }
        if active.isEmpty {
            let why = skipped.map { "\($0.venue) (\($0.reason))" }.joined(separator: "; ")
            throw ConfigError("BTCPRICED_SOURCES leaves no usable source: \(why). Add a keyless venue, e.g. BTCPRICED_SOURCES=\(settings.catalog.keylessDefaults.map(\.rawValue).joined(separator: ","))")
        }
        if settings.mode == .consensus, active.count < settings.consensusMinimum {
            throw ConfigError("BTCPRICED_MODE=consensus needs at least BTCPRICED_CONSENSUS_MIN=\(settings.consensusMinimum) usable sources, but only \(active.map(\.name.rawValue).joined(separator: ", ")) can be asked; add venues to BTCPRICED_SOURCES or lower BTCPRICED_CONSENSUS_MIN")
        }
    }

    public func limits(_ venue: Venue) -> SourceLimits { venue.limits(options, baseURL: settings.restURL(venue)) }

    /// What the usable venues quote in: a saved quote in anything else is not restored.
    public var quoteAssets: Set<String> { Set(active.map { $0.quoteAsset(options) }) }

    /// Each usable venue's base URL, as saved quotes are stamped with it.
    public var origins: [SourceName: String] {
        Dictionary(uniqueKeysWithValues: active.map { ($0.name, settings.restURL($0)) })
    }

    public var descriptors: [SourceDescriptor] {
        active.map { SourceDescriptor(name: $0.name, quoteAsset: $0.quoteAsset(options), limits: limits($0)) }
    }

    public var mode: FetchMode {
        switch settings.mode {
        case .fallback: .fallback
        case .consensus: .consensus(ConsensusRule(maximumDeviation: settings.maximumDeviation, minimumAgreeing: settings.consensusMinimum))
        }
    }

    public var stalenessPolicy: StalenessPolicy {
        StalenessPolicy(staleAfter: settings.staleAfter, interval: settings.interval,
                        paces: Dictionary(uniqueKeysWithValues: active.map { ($0.name, limits($0).pace) }),
                        consensusMinimum: settings.consensusMinimum)
    }

    public var confirmMove: Decimal? { settings.confirmMove }

    /// The longest answer timeout of a usable venue's route.
    public var longestTimeout: Duration {
        active.map { settings.timeouts(for: settings.restURL($0)).answer }.max() ?? settings.timeout
    }

    /// How long a live stream may carry no price before REST refreshes the quote.
    public var priceSilenceAfter: Duration {
        PriceSilence.limit(staleAfter: settings.staleAfter, interval: settings.interval, timeout: longestTimeout,
                           readInterval: ReadCadence.unwatched(publishInterval: settings.publishInterval))
    }

    /// What `--check-config` prints: the effective chain, each source's URL and state, and the budget.
    public var description: String {
        var lines = ["currency: \(settings.currency.code)", "mode: \(settings.mode.rawValue)" + (settings.mode == .consensus
            ? " (median of at least \(settings.consensusMinimum), outliers beyond \(settings.maximumDeviation * 100)% excluded)" : ""),
                     "sources, in order:"]
        for (index, name) in settings.sources.enumerated() {
            guard let venue = settings.venue(named: name) else { continue }
            let state: String
            if let skip = skipped.first(where: { $0.venue == venue }) {
                state = skip.unsupported ? "unsupported — \(skip.reason); never asked"
                    : !settings.hasKey(for: venue) ? "no key — \(skip.reason)" : "disabled — \(skip.reason)"
            } else {
                state = "enabled, BTC/\(venue.quoteAsset(options)) as \(venue.rest.symbol(options)), at most one call every \(limits(venue).pace.humanReadable)"
            }
            lines.append("  \(index + 1). \(venue.name.rawValue.padding(13)) \(venue.requestURL(baseURL: settings.restURL(venue), options))")
            lines.append("     \(state)")
        }
        if let referenceReason, let reference = active.first {
            lines.append("  then \(reference.name.rawValue.padding(10)) \(reference.requestURL(baseURL: settings.restURL(reference), options))")
            lines.append("     enabled — \(referenceReason); at most one call every \(limits(reference).pace.humanReadable)")
        }
        // Where each venue's requests go: the proxy (credentials masked) or straight out.
        lines.append("routes:")
        for venue in active {
            let rest = settings.proxies.route(for: settings.restURL(venue))
            let stream = settings.streamURL(venue).map { settings.proxies.route(for: $0) }
            lines.append("  \(venue.name.rawValue): \(rest)" + (stream.map { $0 == rest ? "" : "; stream \($0)" } ?? ""))
        }
        if let advice = staleAfterAdvice { lines.append("note: " + advice) }
        // A configured venue with a daily budget (a keyed plan's) says what it allows, asked or
        // not; one the chain does not name is of no interest here.
        for venue in settings.sources.compactMap(settings.venue(named:)) {
            let limits = limits(venue)
            guard let daily = limits.dailyCalls else { continue }
            lines.append("\(venue.name.rawValue) budget: \(daily) calls a day (at most one every \(limits.pace.humanReadable))"
                + (venue.needsAPIKey ? "; API key \(settings.hasKey(for: venue) ? "set" : "not set")" : ""))
        }
        return lines.joined(separator: "\n")
    }

    /// When every usable venue's answer changes more slowly than BTCPRICED_STALE_AFTER (a
    /// chain of self-hosted sources alone), every quote will show as stale: say what to set instead.
    public var staleAfterAdvice: String? {
        let slow = active.compactMap { venue in venue.rest.answerChangesEvery.map { (venue: venue, every: $0.every, because: $0.because) } }
        guard !slow.isEmpty, slow.count == active.count, let fastest = slow.min(by: { $0.every < $1.every }),
              fastest.every > settings.staleAfter else { return nil }
        let minutes = (fastest.every + .seconds(300)).components.seconds / 60
        return "\(slow.map(\.venue.name.rawValue).joined(separator: ", ")) may answer the same price for up to \(fastest.every.humanReadable) "
            + "(\(fastest.because)), and its age counts from "
            + "its own time; with BTCPRICED_STALE_AFTER=\(settings.staleAfter.humanReadable) the quote will often show as stale. "
            + "Set BTCPRICED_STALE_AFTER=\(minutes)m, or add a faster venue to BTCPRICED_SOURCES"
    }

    /// When a quote can turn stale between two polls that both work, the status flaps between
    /// fresh and stale and the journal warns each time: say so, and what to set. A stream may
    /// carry quotes faster, so this is advice, not an error.
    public var flappingAdvice: String? {
        let cycle = settings.interval + longestTimeout
        guard settings.staleAfter <= cycle else { return nil }
        return "BTCPRICED_STALE_AFTER=\(settings.staleAfter.humanReadable) is not longer than BTCPRICED_INTERVAL=\(settings.interval.humanReadable) "
            + "plus BTCPRICED_TIMEOUT=\(longestTimeout.humanReadable), so a quote can turn stale between two polls that both work; "
            + "set BTCPRICED_STALE_AFTER well above \(cycle.humanReadable), or shorten BTCPRICED_INTERVAL"
    }

    /// Given settings that do not fit a route through a proxy (a Tor circuit's latency, an
    /// exit's patience): each names what to set. The defaults fit; only given values draw one.
    public var routeAdvice: [String] {
        guard let proxy = active.lazy.compactMap({ self.settings.proxies.route(for: self.settings.restURL($0)).proxy }).first else { return [] }
        typealias Route = DaemonSettings.ThroughProxy
        let why = proxy.isSOCKS ? "a Tor circuit takes seconds to build and hundreds of milliseconds per round trip" : "a proxy adds its own round trips"
        let checks: [(key: SettingKey, given: Duration, shortest: Duration, fits: Duration, problem: String)] = [
            (.timeout, settings.timeoutThroughProxy, Route.shortestTimeout, Route.timeout, "is too short for a request through \(proxy) (\(why))"),
            (.connectTimeout, settings.connectTimeoutThroughProxy, Route.shortestConnectTimeout, Route.connectTimeout,
             "is too short to connect through \(proxy) (\(why))"),
            (.interval, settings.interval, Route.shortestInterval, Route.interval, "polls through \(proxy) more often than an exit deserves"),
            (.staleAfter, settings.staleAfter, Route.staleAfter, Route.staleAfter, "leaves little room for a request through \(proxy) (\(why))"),
        ]
        return checks.filter { $0.given < $0.shortest }.map {
            "\($0.key)=\($0.given.humanReadable) \($0.problem); set \($0.key)=\($0.fits.humanReadable), or leave it unset for the route's default"
        }
    }

    /// How a venue's REST requests leave (credentials masked); nil for a venue not in the catalog.
    public func route(of name: SourceName) -> String? {
        settings.venue(named: name).map { settings.proxies.route(for: settings.restURL($0)).description }
    }

    /// What the daemon logs about the plan at start and when a reload changes it: one notice per
    /// skipped venue, naming what would enable it, and the freshness advice.
    public var notices: [(venue: Venue?, text: String)] {
        skipped.map { (venue: $0.venue, text: "\($0.venue) is skipped: \($0.reason)") }
            + (referenceReason.map { [(venue: active.first, text: $0)] } ?? [])
            + ([staleAfterAdvice, flappingAdvice].compactMap { $0 } + routeAdvice).map { (venue: nil, text: $0) }
    }

    /// The disabled rows of `btcctl sources`.
    public var skippedStatuses: [SourceStatus] {
        skipped.map {
            SourceStatus.disabled($0.venue.name, quoteAsset: $0.unsupported ? settings.currency.code : $0.venue.quoteAsset(options),
                                  reason: $0.reason, state: $0.unsupported ? .unsupported : .disabled)
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
