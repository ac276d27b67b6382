import JSONText

/// The `history` reply: `{"range":"24h","currency":"EUR","points":[["2026-11-21T16:00:00Z","114459.8"],[…,null]]}`,
/// oldest first, closing prices as exact decimal text, gaps as null. `currency` (the daemon's
/// BTCPRICED_CURRENCY) is absent from daemons older than it.
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

    public let range: HistoryRange
    public let currency: String?
    public let points: [Point]

    public init(range: HistoryRange, currency: String? = nil, points: [Point]) {
        self.range = range
        self.currency = currency
        self.points = points
    }

    public var line: String {
        JSONValue.object(JSONObject(members: [
            JSONMember(key: "range", value: .string(range.rawValue)),
            JSONMember(key: "currency", value: .string(orNull: currency)),
            JSONMember(key: "points", value: .array(points.map { .array([.string($0.time), .string(orNull: $0.close)]) })),
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
        self.init(range: range, currency: json["currency"]?.stringValue, points: points)
    }
}
