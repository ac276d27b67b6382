import JSONText

/// The `sources` reply: one entry per configured source, in chain order, like `chronyc sources`.
public struct SourcesReport: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var name: String
        /// `ok`, `failing`, `cooling-down`, `disabled` or `unsupported` (no market in the currency).
        public var state: String
        public var quoteAsset: String
        public var lastPrice: String?
        public var lastPriceAt: String?
        public var lastError: String?
        public var lastErrorAt: String?
        public var latencyMilliseconds: Int64?
        public var callsLastDay: Int?
        public var dailyBudget: Int?
        public var selected: Bool
        /// Why it is disabled or set aside (`no API key`, `outlier`), when it is.
        public var note: String?
        /// How its requests leave: `direct`, or `via socks5h://127.0.0.1:9050 (…)` with any
        /// credentials masked. Nil from a daemon that does not say.
        public var route: String?
        /// Candle requests for the history this run, apart from the price fetches; nil from a
        /// daemon that does not say.
        public var candleRequests: Int?

        public init(name: String, state: String, quoteAsset: String, lastPrice: String? = nil, lastPriceAt: String? = nil,
                    lastError: String? = nil, lastErrorAt: String? = nil, latencyMilliseconds: Int64? = nil,
                    callsLastDay: Int? = nil, dailyBudget: Int? = nil, selected: Bool = false, note: String? = nil, route: String? = nil,
                    candleRequests: Int? = nil) {
            self.name = name
            self.state = state
            self.quoteAsset = quoteAsset
            self.lastPrice = lastPrice
            self.lastPriceAt = lastPriceAt
            self.lastError = lastError
            self.lastErrorAt = lastErrorAt
            self.latencyMilliseconds = latencyMilliseconds
            self.callsLastDay = callsLastDay
            self.dailyBudget = dailyBudget
            self.selected = selected
            self.note = note
            self.route = route
            self.candleRequests = candleRequests
        }

        var json: JSONValue {
            .object([
                "name": .string(name),
                "state": .string(state),
                "quote_asset": .string(quoteAsset),
                "last_price": .string(orNull: lastPrice),
                "last_price_at": .string(orNull: lastPriceAt),
                "last_error": .string(orNull: lastError),
                "last_error_at": .string(orNull: lastErrorAt),
                "latency_ms": latencyMilliseconds.map { .number(String($0)) } ?? .null,
                "calls_24h": callsLastDay.map { .number(String($0)) } ?? .null,
                "budget_24h": dailyBudget.map { .number(String($0)) } ?? .null,
                "selected": .bool(selected),
                "note": .string(orNull: note),
                "route": .string(orNull: route),
                "candle_requests": candleRequests.map { .number(String($0)) } ?? .null,
            ])
        }

        init(json: JSONValue) throws(ErrorReply) {
            guard let name = json["name"]?.stringValue, let state = json["state"]?.stringValue else {
                throw .badRequest("sources entry has no name or state")
            }
            func integer(_ key: String) -> Int64? { json[key]?.numberLiteral.flatMap { Int64($0) } }
            self.init(name: name, state: state, quoteAsset: json["quote_asset"]?.stringValue ?? "?",
                      lastPrice: json["last_price"]?.stringValue, lastPriceAt: json["last_price_at"]?.stringValue,
                      lastError: json["last_error"]?.stringValue, lastErrorAt: json["last_error_at"]?.stringValue,
                      latencyMilliseconds: integer("latency_ms"), callsLastDay: integer("calls_24h").map { Int($0) },
                      dailyBudget: integer("budget_24h").map { Int($0) }, selected: json["selected"]?.boolValue ?? false,
                      note: json["note"]?.stringValue, route: json["route"]?.stringValue,
                      candleRequests: integer("candle_requests").map { Int($0) })
        }
    }

    /// The venue stream, when one is configured: `state` is `live`, `connecting`,
    /// `retrying` or `refused`.
    public struct Stream: Sendable, Hashable {
        public var name: String
        public var state: String
        public var connections: Int
        public var lastError: String?

        public init(name: String, state: String, connections: Int, lastError: String?) {
            self.name = name
            self.state = state
            self.connections = connections
            self.lastError = lastError
        }

        var json: JSONValue {
            .object(["name": .string(name), "state": .string(state), "connections": .number(String(connections)),
                     "last_error": .string(orNull: lastError)])
        }

        init?(json: JSONValue?) {
            guard let json, let name = json["name"]?.stringValue, let state = json["state"]?.stringValue else { return nil }
            self.init(name: name, state: state, connections: json["connections"]?.numberLiteral.flatMap { Int($0) } ?? 0,
                      lastError: json["last_error"]?.stringValue)
        }
    }

    /// `fallback` or `consensus`.
    public var mode: String
    public var entries: [Entry]
    public var stream: Stream?

    public init(mode: String, entries: [Entry], stream: Stream? = nil) {
        self.mode = mode
        self.entries = entries
        self.stream = stream
    }

    public var anyOK: Bool { entries.contains { $0.state == "ok" } }

    public var json: JSONValue {
        .object(["mode": .string(mode), "sources": .array(entries.map(\.json)), "stream": stream?.json ?? .null])
    }
    public var line: String { json.encoded + "\n" }

    public init(json: JSONValue) throws(ErrorReply) {
        guard let list = json["sources"]?.arrayElements else { throw .badRequest("sources reply has no sources list") }
        var entries: [Entry] = []
        for element in list { entries.append(try Entry(json: element)) }
        self.init(mode: json["mode"]?.stringValue ?? "fallback", entries: entries, stream: Stream(json: json["stream"]))
    }
}
