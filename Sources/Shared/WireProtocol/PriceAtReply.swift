import JSONText

/// `history at SECONDS`: the price at a moment, in Unix seconds (btcctl turns `--at
/// 2024-03-01T12:00Z` into them; the HTTP route takes mempool's `timestamp`).
public struct PriceAtQuery: Sendable, Hashable {
    /// The latest moment that can be asked, in Unix seconds: the year 9999.
    public static let latest: Int64 = 253_402_300_799

    public let seconds: Int64

    public init(seconds: Int64) { self.seconds = seconds }

    static func parse(arguments: ArraySlice<String>) -> Result<PriceAtQuery, ErrorReply> {
        guard arguments.count == 1, let text = arguments.first else {
            return .failure(.badRequest("history at takes one moment in Unix seconds, such as 1709294400"))
        }
        return parse(seconds: text).map(PriceAtQuery.init(seconds:))
    }

    /// Unix seconds as digits, from 0 to `latest`.
    public static func parse(seconds text: String) -> Result<Int64, ErrorReply> {
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let seconds = Int64(text), seconds <= latest else {
            return .failure(.badRequest("a moment is Unix seconds, such as 1709294400, not \(JSONValue.string(String(text.prefix(16))).encoded)"))
        }
        return .success(seconds)
    }
}

/// The `history at` reply: the price at a moment, from the history the daemon keeps and never
/// extrapolated: `{"at":1709294400,"currency":"USD","time":1709294400,"price":"61234.5","from":"minute"}`,
/// `from` saying whether it is a minute's close (within the last week) or the UTC day's close,
/// and `time` when that minute or day began. Without one, `time`, `price` and `from` are null,
/// `why` is `future`, `before-history` or `gap`, and `reason` says it in words.
public struct PriceAtReply: Sendable, Hashable {
    public enum Basis: String, Sendable, Hashable {
        /// The close of the minute nearest the moment, at most an hour from it.
        case minute
        /// The close of the moment's UTC day.
        case day
    }

    public struct Found: Sendable, Hashable {
        public let time: Int64
        /// Exact decimal text.
        public let price: String
        public let basis: Basis

        public init(time: Int64, price: String, basis: Basis) {
            (self.time, self.price, self.basis) = (time, price, basis)
        }
    }

    /// Why a moment has no price, as a code (`why`) a program can act on.
    public enum Missing: String, Sendable, Hashable {
        /// The moment has not come yet: a bad request, not a gap.
        case future
        /// Before the first day the history keeps.
        case beforeHistory = "before-history"
        /// No minute near it and no close for its day.
        case gap
    }

    public let at: Int64
    public let currency: String
    public let found: Found?
    /// Why there is no price; nil when there is one.
    public let missing: Missing?
    public let reason: String?

    public init(at: Int64, currency: String, found: Found) {
        (self.at, self.currency, self.found, missing, reason) = (at, currency, found, nil, nil)
    }

    public init(at: Int64, currency: String, missing: Missing, reason: String) {
        (self.at, self.currency, found, self.missing, self.reason) = (at, currency, nil, missing, reason)
    }

    public var line: String {
        var members = [JSONMember(key: "at", value: .number(String(at))), JSONMember(key: "currency", value: .string(currency)),
                       JSONMember(key: "time", value: found.map { .number(String($0.time)) } ?? .null),
                       JSONMember(key: "price", value: found.map { .string($0.price) } ?? .null),
                       JSONMember(key: "from", value: found.map { .string($0.basis.rawValue) } ?? .null)]
        if let missing { members.append(JSONMember(key: "why", value: .string(missing.rawValue))) }
        if let reason { members.append(JSONMember(key: "reason", value: .string(reason))) }
        return JSONValue.object(JSONObject(members: members)).encoded + "\n"
    }

    public init(json: JSONValue) throws(ErrorReply) {
        guard let atText = json["at"]?.numberLiteral, let at = Int64(atText), let currency = json["currency"]?.stringValue,
              currency.utf8.count <= 8 else {
            throw .badRequest("price-at reply has no moment or no currency")
        }
        if let price = json["price"]?.stringValue {
            guard DecimalText.parts(price) != nil, let timeText = json["time"]?.numberLiteral, let time = Int64(timeText),
                  let basis = json["from"]?.stringValue.flatMap(Basis.init(rawValue:)) else {
                throw .badRequest("price-at reply has a malformed price, time or basis")
            }
            self.init(at: at, currency: currency, found: Found(time: time, price: price, basis: basis))
        } else {
            self.init(at: at, currency: currency, missing: json["why"]?.stringValue.flatMap(Missing.init(rawValue:)) ?? .gap,
                      reason: String((json["reason"]?.stringValue ?? "no price at that moment").prefix(200)))
        }
    }
}
