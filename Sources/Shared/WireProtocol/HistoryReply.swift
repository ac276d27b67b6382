import JSONText

/// The `history` reply: `{"range":"24h","currency":"EUR","points":[["2026-11-21T16:00:00Z","114459.8"],[…,null]],"summary":{…}}`,
/// oldest first, closing prices as exact decimal text, gaps as null. `currency` (the daemon's
/// BTCPRICED_CURRENCY) is absent from daemons older than it. `summary` covers every minute bar
/// of the range, so its figures do not depend on how many points were asked for; null without
/// a bar, absent from older daemons. `filled` lists the minutes of the range that came from a
/// venue's candles (`[{"from":…,"through":…,"source":"binance"}]`), empty when none did.
public struct HistoryReply: Sendable, Hashable {
    public struct Point: Sendable, Hashable {
        /// RFC 3339 UTC, whole seconds.
        public let time: String
        public let close: String?

        public init(time: String, close: String?) {
            self.time = time
            self.close = close
        }
    }

    /// Every bar of the range together: the first bar's time and open, the last close, and the
    /// lowest low and highest high with their bars' times (RFC 3339 UTC, whole seconds).
    public struct Summary: Sendable, Hashable {
        public let since: String
        public let open: String
        public let close: String
        public let low: String
        public let lowAt: String
        public let high: String
        public let highAt: String

        public init(since: String, open: String, close: String, low: String, lowAt: String, high: String, highAt: String) {
            (self.since, self.open, self.close, self.low, self.lowAt, self.high, self.highAt) = (since, open, close, low, lowAt, high, highAt)
        }

        var json: JSONValue {
            .object(JSONObject(members: [
                JSONMember(key: "since", value: .string(since)), JSONMember(key: "open", value: .string(open)),
                JSONMember(key: "close", value: .string(close)), JSONMember(key: "low", value: .string(low)),
                JSONMember(key: "low_at", value: .string(lowAt)), JSONMember(key: "high", value: .string(high)),
                JSONMember(key: "high_at", value: .string(highAt)),
            ]))
        }

        init?(json: JSONValue) {
            let texts = ["since", "open", "close", "low", "low_at", "high", "high_at"].map { json[$0]?.stringValue }
            guard texts.allSatisfy({ $0 != nil }), [1, 2, 3, 5].allSatisfy({ DecimalText.parts(texts[$0] ?? "") != nil }) else { return nil }
            self.init(since: texts[0]!, open: texts[1]!, close: texts[2]!, low: texts[3]!, lowAt: texts[4]!, high: texts[5]!, highAt: texts[6]!)
        }
    }

    /// Minutes of the range filled from a venue's candles, not seen by the daemon itself.
    public struct Filled: Sendable, Hashable {
        /// The first and the last filled minute (RFC 3339 UTC, whole seconds).
        public let from: String
        public let through: String
        /// The venue whose candles filled them (`binance`).
        public let source: String

        public init(from: String, through: String, source: String) {
            (self.from, self.through, self.source) = (from, through, source)
        }

        var json: JSONValue {
            .object(JSONObject(members: [
                JSONMember(key: "from", value: .string(from)), JSONMember(key: "through", value: .string(through)),
                JSONMember(key: "source", value: .string(source)),
            ]))
        }

        init?(json: JSONValue) {
            guard let from = json["from"]?.stringValue, let through = json["through"]?.stringValue, let source = json["source"]?.stringValue,
                  from.utf8.count <= 32, through.utf8.count <= 32, (1...32).contains(source.utf8.count) else { return nil }
            self.init(from: from, through: through, source: source)
        }
    }

    public let range: HistoryRange
    public let currency: String?
    public let points: [Point]
    public let summary: Summary?
    /// Empty when every bar is the daemon's own, and from daemons older than backfill.
    public let filled: [Filled]

    public init(range: HistoryRange, currency: String? = nil, points: [Point], summary: Summary? = nil, filled: [Filled] = []) {
        self.range = range
        self.currency = currency
        self.points = points
        self.summary = summary
        self.filled = filled
    }

    public var line: String {
        JSONValue.object(JSONObject(members: [
            JSONMember(key: "range", value: .string(range.rawValue)),
            JSONMember(key: "currency", value: .string(orNull: currency)),
            JSONMember(key: "points", value: .array(points.map { .array([.string($0.time), .string(orNull: $0.close)]) })),
            JSONMember(key: "summary", value: summary?.json ?? .null),
            JSONMember(key: "filled", value: .array(filled.map(\.json))),
        ])).encoded + "\n"
    }

    public init(json: JSONValue) throws(ErrorReply) {
        guard let rangeText = json["range"]?.stringValue, let range = HistoryRange(rawValue: rangeText) else {
            throw .badRequest("history reply has no valid range")
        }
        guard case .array(let elements)? = json["points"] else { throw .badRequest("history reply has no points array") }
        var points: [Point] = []
        points.reserveCapacity(elements.count)
        for element in elements {
            guard case .array(let pair) = element, pair.count == 2, let time = pair[0].stringValue,
                  pair[1].isNull || pair[1].stringValue.map({ DecimalText.parts($0) != nil }) == true
            else { throw .badRequest("history reply has a malformed point") }
            points.append(Point(time: time, close: pair[1].stringValue))
        }
        var summary: Summary?
        if let object = json["summary"], !object.isNull {
            guard let parsed = Summary(json: object) else { throw .badRequest("history reply has a malformed summary") }
            summary = parsed
        }
        var filled: [Filled] = []
        if case .array(let spans)? = json["filled"] {
            for span in spans.prefix(HistoryQuery.maximumPoints) {
                guard let parsed = Filled(json: span) else { throw .badRequest("history reply has a malformed filled span") }
                filled.append(parsed)
            }
        }
        self.init(range: range, currency: json["currency"]?.stringValue, points: points, summary: summary, filled: filled)
    }
}
