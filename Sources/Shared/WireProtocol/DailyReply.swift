import JSONText

/// `history daily [SINCE]`: one bar per UTC day, oldest first, as exact decimal text (the
/// daemon makes each from its own decimals and dates; a client checks them when it reads):
/// `{"range":"daily","currency":"EUR","days":[["2026-11-27","113020","115200.5","112010","114459.8"],…]}`.
public struct DailyReply: Sendable, Hashable {
    public struct Day: Sendable, Hashable {
        /// `2026-11-27`, UTC.
        public let date: String
        public let open: String, high: String, low: String, close: String

        public init(date: String, open: String, high: String, low: String, close: String) {
            (self.date, self.open, self.high, self.low, self.close) = (date, open, high, low, close)
        }
    }

    public let currency: String
    public let days: [Day]

    public init(currency: String, days: [Day]) {
        self.currency = currency
        self.days = days
    }

    /// Written straight into one string, without a JSON tree: ten years are 3,653 days, and
    /// the tree would cost the daemon a couple of megabytes for each such request. Dates and
    /// exact decimals need no escaping; the currency is escaped as any JSON string.
    public var line: String {
        var text = #"{"range":"daily","currency":"# + JSONValue.string(currency).encoded + #","days":["#
        text.reserveCapacity(text.utf8.count + days.count * 64 + 3)
        for (index, day) in days.enumerated() {
            if index > 0 { text += "," }
            text += #"[""# + day.date + #"",""# + day.open + #"",""# + day.high + #"",""# + day.low + #"",""# + day.close + #""]"#
        }
        return text + "]}\n"
    }

    public init(json: JSONValue) throws(ErrorReply) {
        guard json["range"]?.stringValue == "daily", let currency = json["currency"]?.stringValue, currency.utf8.count <= 8 else {
            throw .badRequest("daily history reply has no range \"daily\" or no currency")
        }
        guard case .array(let elements)? = json["days"] else { throw .badRequest("daily history reply has no days array") }
        var days: [Day] = []
        days.reserveCapacity(elements.count)
        for element in elements {
            let texts = element.arrayElements?.compactMap(\.stringValue) ?? []
            guard texts.count == 5, element.arrayElements?.count == 5, DailyQuery.isDate(texts[0]),
                  texts.dropFirst().allSatisfy({ DecimalText.parts($0) != nil })
            else { throw .badRequest("daily history reply has a malformed day") }
            days.append(Day(date: texts[0], open: texts[1], high: texts[2], low: texts[3], close: texts[4]))
        }
        self.init(currency: currency, days: days)
    }
}

/// `history daily [SINCE]`: the days from SINCE (`2025-01-01`) on, or all that are kept.
public struct DailyQuery: Sendable, Hashable {
    public let since: String?

    public init(since: String? = nil) { self.since = since }

    static func parse(arguments: ArraySlice<String>) -> Result<DailyQuery, ErrorReply> {
        guard arguments.count <= 1 else { return .failure(.badRequest("history daily takes at most a date to start from")) }
        guard let since = arguments.first else { return .success(DailyQuery()) }
        guard isDate(since) else { return .failure(.badRequest("history daily wants a date like 2025-01-01, not \"\(since.prefix(16))\"")) }
        return .success(DailyQuery(since: since))
    }

    /// `YYYY-MM-DD` with a month from 01 to 12 and a day from 01 to 31.
    public static func isDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) }) else { return false }
        let month = Int(bytes[5] - 0x30) * 10 + Int(bytes[6] - 0x30), day = Int(bytes[8] - 0x30) * 10 + Int(bytes[9] - 0x30)
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
