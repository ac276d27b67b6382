import FoundationEssentials

/// Why one attempt at one source produced no quote. Short descriptions: they end up in
/// `last_error`, STATUS= and the log.
public enum FetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case timeout(after: Duration)
    case transport(String)
    case httpStatus(Int)
    /// 429/418 or an API-level rate limit. `retryAfter` is honoured as a cool-down.
    case rateLimited(retryAfter: Duration?)
    /// HTTP 451: the exchange refuses this machine's location.
    case geoRestricted
    case bodyTooLarge(limit: Int)
    case notJSON(String)
    /// An HTML page where JSON was due: a CDN's block, captcha or challenge page (common for
    /// Tor exits and shared proxies) or a captive portal, with its HTTP status.
    case htmlPage(status: Int)
    case missingField(String)
    case wrongSymbol(expected: String, got: String)
    case invalidPrice(PriceError)
    /// The exchange answered with its own error object (some do so with HTTP 200).
    case exchangeError(String)
    /// The venue wants a valid API key (HTTP 401, or an HTTP-200 error object about the key).
    case unauthorized(String)
    /// The answer was already older than STALE_AFTER when it came (a cache, or a venue whose
    /// price lags): the chain asks the next venue, and serves this one only if none does better.
    case staleAnswer(age: Duration)
    /// A move larger than BTCPRICED_CONFIRM_MOVE from a recent quote: held until another venue
    /// confirms it (`PriceCheck`).
    case unconfirmedPrice(Price, last: Price)
    /// More than ten times above or below the last quote: refused unless another venue agrees.
    case implausiblePrice(Price, last: Price)
    /// A blocked Tor exit's answer (described): the venue's circuit was renewed, and the next
    /// attempt goes out through another exit rather than resting.
    case newCircuit(after: String)
    /// A venue asked through a proxy: what went wrong on the way, naming the proxy.
    case proxy(ProxyTrouble)

    /// How long a rate-limited venue rests when it names no time of its own.
    public static let defaultRateLimitPause = Duration.seconds(60)

    public var description: String {
        switch self {
        case .timeout(let after): "timeout after \(after.humanReadable)"
        case .transport(let reason): reason
        case .httpStatus(let code): "HTTP \(code)"
        case .rateLimited(let retryAfter?): "rate-limited, retry after \(retryAfter.humanReadable)"
        case .rateLimited(nil): "rate-limited"
        case .geoRestricted: "HTTP 451 (geo-restricted)"
        case .bodyTooLarge(let limit): "response larger than \(limit / 1024) KiB"
        case .notJSON(let what): "response is not JSON (\(what))"
        case .htmlPage(let status): "answered an HTML page (HTTP \(status)), not JSON: a block or captcha, common for Tor exits"
        case .missingField(let field): "response has no \(field) field"
        case .wrongSymbol(let expected, let got): "wrong symbol \(got.debugDescription.prefix(40)), expected \(expected)"
        case .invalidPrice(let error): error.description
        case .exchangeError(let message): "exchange error: \(message.prefix(120))"
        case .unauthorized(let message): "API key refused: \(message.prefix(120))"
        case .staleAnswer(let age): "answered a quote \(age.wholeMilliseconds / 1000) s old (cached or lagging)"
        case .unconfirmedPrice(let price, let last):
            "sent \(price), \(Self.percentText(PriceCheck.move(from: last, to: price))) % \(price > last ? "above" : "below") the last quote \(last); held until another venue confirms it"
        case .implausiblePrice(let price, let last):
            "sent \(price), \(price > last ? "more than ten times" : "less than a tenth of") the last quote \(last); refused unless another venue agrees"
        case .newCircuit(let after): "\(after); trying a new Tor circuit before resting"
        case .proxy(let trouble): trouble.description
        }
    }

    /// The price the venue sent, when the failure is about the price itself (held or refused).
    public var sentPrice: Price? {
        switch self {
        case .unconfirmedPrice(let price, _), .implausiblePrice(let price, _): price
        default: nil
        }
    }

    public var isImplausible: Bool {
        if case .implausiblePrice = self { true } else { false }
    }

    /// How long the source should be left alone because it asked for it, if at all.
    public var cooldown: Duration? {
        switch self {
        case .rateLimited(let retryAfter): retryAfter ?? Self.defaultRateLimitPause
        case .geoRestricted: .seconds(300)
        // A refused key stays refused; asking again only spends the quota.
        case .unauthorized: .seconds(600)
        // A challenge page answers a client that looks like a bot: asking every second makes
        // a block likelier and longer.
        case .htmlPage: Self.defaultRateLimitPause
        default: nil
        }
    }
}

extension FetchFailure {
    /// A fraction as a percentage with one decimal, cut rather than rounded (`0.50049` is
    /// `50.0`): a log line's figure, never a price.
    static func percentText(_ fraction: Decimal) -> String {
        let text = (fraction * 100).description
        guard let dot = text.firstIndex(of: ".") else { return text + ".0" }
        return String(text[...text.index(after: dot)])
    }
}

extension Duration {
    /// `800ms`, `1.5s`, `2m`: the same spelling the config file uses.
    public var humanReadable: String {
        let ms = wholeMilliseconds
        if ms < 1000 { return "\(ms)ms" }
        if ms % 60_000 == 0 { return "\(ms / 60_000)m" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        return "\(ms / 1000).\(String(ms % 1000 + 1000).dropFirst().reversed().drop { $0 == "0" }.reversed().map(String.init).joined())s"
    }

    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    public var wholeNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
