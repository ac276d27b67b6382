import JSONText

/// The `status` reply and each `watch` line. Field names and types are a public contract.
public struct StatusMessage: Sendable, Hashable {
    public enum State: String, Sendable, Hashable { case fresh, stale, nodata }

    /// Exact decimal text.
    public var price: String?
    public var currency: String
    public var symbol: String?
    public var source: String?
    /// RFC 3339 UTC with milliseconds.
    public var timestamp: String?
    /// Kept in whole milliseconds; on the wire it is seconds with three decimals.
    public var ageMilliseconds: Int64?
    public var state: State
    public var lastError: String?
    public var version: String
    /// The venues behind the quote: its source, or those a consensus used.
    public var sources: [String]
    /// In consensus mode, highest minus lowest price used, as exact decimal text.
    public var spread: String?
    /// How the quote arrived: `stream` (a venue's WebSocket) or `poll` (REST); nil without one.
    public var transport: String?
    /// Change over 1 h, 24 h and 7 d and the 24 h range; all nil until known.
    public var trend: Trend

    /// Percent changes as decimal text with two places (`"-1.27"`); the 24 h open, high and low
    /// as exact decimal text.
    public struct Trend: Sendable, Hashable {
        public var change1h: String?
        public var change24h: String?
        public var change7d: String?
        public var open24h: String?
        public var high24h: String?
        public var low24h: String?
        /// Where the 24 h change, open, high and low come from, in one word: `recorded` (the
        /// daemon's own minute history, as `chart` draws it) or `venue` (the quoting venue's
        /// rolling 24 h figures, until the history covers a day); nil when unknown.
        public var dayFrom: String?

        public init(change1h: String? = nil, change24h: String? = nil, change7d: String? = nil,
                    open24h: String? = nil, high24h: String? = nil, low24h: String? = nil, dayFrom: String? = nil) {
            self.change1h = change1h
            self.change24h = change24h
            self.change7d = change7d
            self.open24h = open24h
            self.high24h = high24h
            self.low24h = low24h
            self.dayFrom = dayFrom
        }

        public static let unknown = Trend()

        var members: [JSONMember] {
            [JSONMember(key: "change_1h", value: .string(orNull: change1h)),
             JSONMember(key: "change_24h", value: .string(orNull: change24h)),
             JSONMember(key: "change_7d", value: .string(orNull: change7d)),
             JSONMember(key: "open_24h", value: .string(orNull: open24h)),
             JSONMember(key: "high_24h", value: .string(orNull: high24h)),
             JSONMember(key: "low_24h", value: .string(orNull: low24h)),
             JSONMember(key: "day_from", value: .string(orNull: dayFrom))]
        }

        /// Missing keys (an older daemon) read as unknown.
        init(json: JSONValue) {
            self.init(change1h: json["change_1h"]?.stringValue, change24h: json["change_24h"]?.stringValue,
                      change7d: json["change_7d"]?.stringValue, open24h: json["open_24h"]?.stringValue,
                      high24h: json["high_24h"]?.stringValue, low24h: json["low_24h"]?.stringValue,
                      dayFrom: json["day_from"]?.stringValue)
        }
    }

    public init(price: String?, currency: String = "USD", symbol: String?, source: String?, timestamp: String?,
                ageMilliseconds: Int64?, state: State, lastError: String?, version: String,
                sources: [String] = [], spread: String? = nil, transport: String? = nil, trend: Trend = .unknown) {
        self.price = price
        self.currency = currency
        self.symbol = symbol
        self.source = source
        self.timestamp = timestamp
        self.ageMilliseconds = ageMilliseconds
        self.state = state
        self.lastError = lastError
        self.version = version
        self.sources = sources
        self.spread = spread
        self.transport = transport
        self.trend = trend
    }

    public var json: JSONValue { .object(JSONObject(members: staticHead + Self.timeDependent(ageMilliseconds, state) + staticTail)) }

    /// Rendered once per change; only the time-dependent middle is rendered per request.
    public var rendered: RenderedStatus {
        RenderedStatus(head: String(JSONValue.object(JSONObject(members: staticHead)).encoded.dropLast()) + ",",
                       tail: "," + String(JSONValue.object(JSONObject(members: staticTail)).encoded.dropFirst()) + "\n")
    }

    private var staticHead: [JSONMember] {
        [JSONMember(key: "price", value: .string(orNull: price)),
         JSONMember(key: "currency", value: .string(currency)),
         JSONMember(key: "symbol", value: .string(orNull: symbol)),
         JSONMember(key: "source", value: .string(orNull: source)),
         JSONMember(key: "timestamp", value: .string(orNull: timestamp))]
    }

    private var staticTail: [JSONMember] {
        [JSONMember(key: "last_error", value: .string(orNull: lastError)),
         JSONMember(key: "version", value: .string(version)),
         JSONMember(key: "sources", value: .array(sources.map { .string($0) })),
         JSONMember(key: "spread", value: .string(orNull: spread)),
         JSONMember(key: "transport", value: .string(orNull: transport))] + trend.members
            + [JSONMember(key: "sats_per_unit", value: .string(orNull: satsPerUnit))]
    }

    /// Sats per one unit of the currency, 100,000,000 ÷ the price (SatsText's rounding); derived
    /// from the price, so a status from an older daemon has it too.
    public var satsPerUnit: String? { price.flatMap(SatsText.perUnit(price:)) }

    fileprivate static func timeDependent(_ ageMilliseconds: Int64?, _ state: State) -> [JSONMember] {
        [JSONMember(key: "age", value: ageMilliseconds.map { .number(secondsLiteral(milliseconds: $0)) } ?? .null),
         JSONMember(key: "state", value: .string(state.rawValue)),
         JSONMember(key: "stale", value: .bool(state == .stale))]
    }

    public var line: String { json.encoded + "\n" }

    public init(json: JSONValue) throws(ErrorReply) {
        func optionalString(_ key: String) throws(ErrorReply) -> String? {
            guard let value = json[key] else { throw .badRequest("status reply has no \(key) field") }
            if value.isNull { return nil }
            guard let text = value.stringValue else { throw .badRequest("status field \(key) is not a string") }
            return text
        }
        guard case .object = json else { throw .badRequest("status reply is not a JSON object") }
        guard let stateText = json["state"]?.stringValue, let state = State(rawValue: stateText) else {
            throw .badRequest("status reply has no valid state")
        }
        var age: Int64?
        if let ageValue = json["age"], !ageValue.isNull {
            guard let literal = ageValue.numberLiteral, let ms = Self.milliseconds(secondsLiteral: literal) else {
                throw .badRequest("status field age is not a number")
            }
            age = ms
        }
        self.init(price: try optionalString("price"), currency: try optionalString("currency") ?? "USD",
                  symbol: try optionalString("symbol"), source: try optionalString("source"),
                  timestamp: try optionalString("timestamp"), ageMilliseconds: age, state: state,
                  lastError: try optionalString("last_error"), version: try optionalString("version") ?? "",
                  sources: json["sources"]?.stringElements ?? [], spread: json["spread"]?.stringValue,
                  transport: json["transport"]?.stringValue, trend: Trend(json: json))
    }

    /// `1234` ms → `1.234`.
    static func secondsLiteral(milliseconds: Int64) -> String {
        let ms = max(0, milliseconds)
        let fraction = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `1.2345` → 1234 ms. Parsed by hand; exponents are not expected from our own daemon.
    static func milliseconds(secondsLiteral text: String) -> Int64? {
        var whole: Int64 = 0, fraction: Int64 = 0, fractionDigits = 0, wholeDigits = 0
        var inFraction = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), !inFraction {
                inFraction = true
                continue
            }
            guard byte >= 48, byte <= 57 else { return nil }
            if inFraction {
                if fractionDigits < 3 { fraction = fraction * 10 + Int64(byte - 48) }
                fractionDigits += 1
            } else {
                guard wholeDigits < 15 else { return nil }
                whole = whole * 10 + Int64(byte - 48)
                wholeDigits += 1
            }
        }
        guard wholeDigits > 0, !inFraction || fractionDigits > 0 else { return nil }
        for _ in min(fractionDigits, 3)..<3 { fraction *= 10 }
        return whole * 1000 + fraction
    }
}

/// A status line split around its age and state: what a daemon keeps per change, so that a
/// request costs one splice, not a JSON rendering.
public struct RenderedStatus: Sendable, Hashable {
    public let head: String
    public let tail: String

    /// The full line, newline included.
    public func line(ageMilliseconds: Int64?, state: StatusMessage.State) -> String {
        var line = head
        line.reserveCapacity(head.utf8.count + tail.utf8.count + 48)
        // The members of StatusMessage.timeDependent, written directly: this runs for every
        // `status` request, and none of its text needs escaping.
        line += "\"age\":"
        line += ageMilliseconds.map(StatusMessage.secondsLiteral(milliseconds:)) ?? "null"
        line += ",\"state\":\""
        line += state.rawValue
        line += state == .stale ? "\",\"stale\":true" : "\",\"stale\":false"
        line += tail
        return line
    }
}
