import JSONText
import PriceCore

/// An HTTP answer reduced to what the parsers need, so they stay pure and unit-testable.
public struct ExchangeResponse: Sendable {
    public let status: Int
    public let retryAfter: String?
    /// Binance's `X-MBX-USED-WEIGHT-1M`: request weight this IP used in the current minute.
    public let usedWeight: String?
    public let body: [UInt8]
    /// The HTTP `Date`: when the origin made the answer (a cache passes the origin's on).
    /// Nil without a usable one.
    public let date: Timestamp?
    /// The HTTP `Age`: how long caches held the answer; zero without one.
    public let age: Duration
    /// Whether a cache held the answer at all (an `Age` came, even `Age: 0`): its `Date` may
    /// then be the cache's copy of the origin's, so it says nothing of the venue's clock now.
    public let cached: Bool
    /// The body parsed once, read both for a venue's error object and for its answer.
    let parsed: Result<JSONValue, FetchFailure>
    /// An HTML page (a block, captcha or portal) rather than the venue's JSON.
    var isHTML: Bool { ResponseChecks.isHTML(body) }

    public init(status: Int, retryAfter: String? = nil, usedWeight: String? = nil, date: String? = nil, age: String? = nil, body: [UInt8]) {
        self.status = status
        self.retryAfter = retryAfter
        self.usedWeight = usedWeight
        self.body = body
        self.date = date.flatMap { Timestamp(httpDate: String($0.trimmingBlanks)) }
        self.age = ResponseChecks.age(age)
        cached = age != nil
        self.parsed = ResponseChecks.parse(body)
    }

    public init(status: Int, retryAfter: String? = nil, usedWeight: String? = nil, date: String? = nil, age: String? = nil, body: String) {
        self.init(status: status, retryAfter: retryAfter, usedWeight: usedWeight, date: date, age: age, body: Array(body.utf8))
    }

    /// The body as JSON when it is, for reading a venue's error object off a failed answer.
    var errorJSON: JSONValue? { try? parsed.get() }

    /// The body as JSON, or why it is not.
    func json() throws(FetchFailure) -> JSONValue { try parsed.get() }
}

enum ResponseChecks {
    /// Caps Retry-After so a buggy header cannot silence a source for days.
    static let longestRetryAfter = Duration.seconds(3600)

    /// Maps the status codes every exchange shares; returns only for a 2xx answer that is not
    /// an HTML page. A limit or a geo-block keeps its meaning when its body is one.
    static func requireSuccess(_ response: ExchangeResponse) throws(FetchFailure) {
        switch response.status {
        case 429, 418: throw .rateLimited(retryAfter: retryAfter(response.retryAfter))
        case 451: throw .geoRestricted
        // A 5xx page is an outage (a gateway's error page), not a block.
        case 200..<500 where response.isHTML: throw .htmlPage(status: response.status)
        case 200..<300: return
        default: throw .httpStatus(response.status)
        }
    }

    /// Whether a status has a meaning of its own that a venue's error text must not hide.
    static func isSharedStatus(_ status: Int) -> Bool {
        status < 400 || status == 429 || status == 418 || status == 451
    }

    /// A year: an `Age` beyond it is nonsense, and the answer is stale either way.
    static let longestAge: Int64 = 366 * 86_400

    static func age(_ header: String?) -> Duration {
        seconds(header, atMost: .seconds(longestAge)) ?? .zero
    }

    /// A venue's own time field in whole seconds since the epoch (a string or a number); nil
    /// when absent or not a positive whole number (mempool sends 0 before its first update).
    static func epochSeconds(_ value: JSONValue?) -> Timestamp? {
        guard let text = value?.stringValue ?? value?.numberLiteral, let seconds = Int64(text), seconds > 0, seconds < 100_000_000_000
        else { return nil }
        return Timestamp(millisecondsSinceEpoch: seconds * 1000)
    }

    static func retryAfter(_ header: String?) -> Duration? {
        seconds(header, atMost: longestRetryAfter)
    }

    /// A header holding whole seconds (`Retry-After`, `Age`), capped; nil when it holds none.
    private static func seconds(_ header: String?, atMost cap: Duration) -> Duration? {
        guard let header, let seconds = Int64(header.trimmingBlanks), seconds >= 0 else { return nil }
        return min(.seconds(seconds), cap)
    }

    static func parse(_ body: [UInt8]) -> Result<JSONValue, FetchFailure> {
        if isHTML(body) { return .failure(.notJSON("HTML page")) }
        guard body.contains(where: { !isBlank($0) }) else { return .failure(.notJSON("empty body")) }
        do {
            return .success(try JSONValue(parsing: body))
        } catch {
            return .failure(.notJSON("invalid JSON: \(error.message)"))
        }
    }

    /// Whether the first non-blank byte opens a tag: no JSON text starts with `<`.
    static func isHTML(_ body: [UInt8]) -> Bool {
        body.first { !isBlank($0) } == UInt8(ascii: "<")
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A venue's 24 h figures when high and low are valid and in order; nil otherwise, since
    /// they are an extra and never a reason to refuse a price.
    static func dayRange(open: JSONValue?, high: JSONValue?, low: JSONValue?) -> DayRange? {
        guard let high = try? price(high, field: "high"), let low = try? price(low, field: "low"), low <= high else { return nil }
        return DayRange(open: open.flatMap { try? price($0, field: "open") }, high: high, low: low)
    }

    static func price(_ value: JSONValue?, field: String) throws(FetchFailure) -> Price {
        guard let value else { throw .missingField(field) }
        // Most venues send a string, CryptoCompare a number; both arrive here as literal text.
        guard let text = value.stringValue ?? value.numberLiteral else { throw .missingField(field) }
        do {
            return try Price(parsing: text)
        } catch {
            throw .invalidPrice(error)
        }
    }

    /// Venue error text that says "slow down", in any of the spellings seen.
    static func soundsRateLimited(_ message: String) -> Bool {
        let lower = message.lowercased()
        return lower.contains("rate limit") || lower.contains("too many requests")
    }
}

extension String {
    var trimmingTrailingSlash: String {
        var result = self
        while result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
