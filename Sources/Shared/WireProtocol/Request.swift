/// Wire protocol v2: one request line in, one reply line out (or a stream, for `watch`). Version
/// 2 added a currency to the requests that show a price (`price EUR`) and `currencies`; every
/// request of version 1 answers as it did.
public enum WireProtocol {
    public static let version = 2
    /// Longest accepted request line, terminator included.
    public static let maximumRequestLength = 256
}

public enum Request: Sendable, Hashable {
    case status, price, watch, ping, version, sources
    /// Every currency the daemon serves, each with its status.
    case currencies
    /// The Prometheus text exposition, then close.
    case metrics
    /// `history RANGE [POINTS]`: closing prices over the range, evenly downsampled.
    case history(HistoryQuery)
    /// `history daily [SINCE]`: one bar per UTC day, for up to ten years.
    case daily(DailyQuery)
    /// `history at SECONDS`: the price at a moment, from the minutes or the days kept.
    case priceAt(PriceAtQuery)

    /// The requests that take no argument.
    public static let plain: [Request] = [.status, .price, .watch, .ping, .version, .sources, .metrics, .currencies]
    static let words = "status, price, watch, sources, history, currencies, metrics, ping, version"
    /// The requests a currency may follow (`price EUR`): those that show a price or its venues.
    static let addressable: Set<String> = ["status", "price", "sources", "history", "watch"]

    /// `history`'s arguments, as words (the socket's request, or an HTTP query's values):
    /// `RANGE [POINTS]`, `daily [SINCE]`, or `at SECONDS`.
    public static func history(arguments: ArraySlice<String>) -> Result<Request, ErrorReply> {
        if arguments.first == "daily" { return DailyQuery.parse(arguments: arguments.dropFirst()).map(Request.daily) }
        if arguments.first == "at" { return PriceAtQuery.parse(arguments: arguments.dropFirst()).map(Request.priceAt) }
        return HistoryQuery.parse(arguments: arguments).map(Request.history)
    }

    /// Parses one request line without its LF; a trailing CR is accepted too. A currency after
    /// the word is refused; `Addressed.parse` reads it.
    public static func parse(_ line: some Collection<UInt8>) -> Result<Request, ErrorReply> {
        Addressed.parse(line).flatMap { addressed in
            guard let currency = addressed.currency else { return .success(addressed.request) }
            return .failure(.badRequest("\(addressed.request.word) \(currency): no currency is taken here"))
        }
    }

    /// The words of a request line, once its length and characters are checked.
    static func words(_ line: some Collection<UInt8>) -> Result<[String], ErrorReply> {
        guard line.count < WireProtocol.maximumRequestLength else {
            return .failure(.badRequest("request longer than \(WireProtocol.maximumRequestLength) bytes"))
        }
        var bytes = ArraySlice(line)
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard bytes.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) else {
            return .failure(.badRequest("request is not printable ASCII"))
        }
        return .success(bytes.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map { String(decoding: $0, as: UTF8.self) })
    }

    /// A request's words without the currency.
    static func parse(words: ArraySlice<String>) -> Result<Request, ErrorReply> {
        guard let word = words.first else { return .failure(.badRequest("empty request; try: \(Self.words)")) }
        if word == "history" { return history(arguments: words.dropFirst()) }
        guard let request = plain.first(where: { $0.word == word }) else {
            return .failure(.badRequest("unknown request \"\(word.prefix(32))\"; try: \(Self.words)"))
        }
        guard words.count == 1 else { return .failure(.badRequest("\(word) takes no arguments")) }
        return .success(request)
    }

    public var word: String {
        switch self {
        case .status: "status"
        case .price: "price"
        case .watch: "watch"
        case .ping: "ping"
        case .version: "version"
        case .sources: "sources"
        case .metrics: "metrics"
        case .currencies: "currencies"
        case .history, .daily, .priceAt: "history"
        }
    }

    /// The request as sent by a client, terminator included.
    public var line: String {
        if case .history(let query) = self { return "history \(query.range.rawValue) \(query.points)\n" }
        if case .daily(let query) = self { return "history daily" + (query.since.map { " " + $0 } ?? "") + "\n" }
        if case .priceAt(let query) = self { return "history at \(query.seconds)\n" }
        return word + "\n"
    }
}

/// The spans `history` serves.
public enum HistoryRange: String, Sendable, Hashable, CaseIterable {
    case hour = "1h", day = "24h", week = "7d"
}

public struct HistoryQuery: Sendable, Hashable {
    public static let defaultPoints = 60
    public static let maximumPoints = 1000

    public let range: HistoryRange
    public let points: Int

    public init(range: HistoryRange, points: Int = Self.defaultPoints) {
        self.range = range
        self.points = points
    }

    static func parse(arguments: ArraySlice<String>) -> Result<HistoryQuery, ErrorReply> {
        let ranges = HistoryRange.allCases.map(\.rawValue).joined(separator: ", ") + ", daily, at"
        guard let rangeText = arguments.first else { return .failure(.badRequest("history needs a range: \(ranges)")) }
        guard let range = HistoryRange(rawValue: rangeText) else {
            return .failure(.badRequest("unknown history range \"\(rangeText.prefix(16))\"; use \(ranges)"))
        }
        guard arguments.count <= 2 else { return .failure(.badRequest("history takes a range and at most a point count")) }
        guard let pointsText = arguments.dropFirst().first else { return .success(HistoryQuery(range: range)) }
        guard pointsText.count <= 4, pointsText.allSatisfy(\.isASCIIDigit), let points = Int(pointsText), (1...maximumPoints).contains(points) else {
            return .failure(.badRequest("history points must be a whole number from 1 to \(maximumPoints), not \"\(pointsText.prefix(16))\""))
        }
        return .success(HistoryQuery(range: range, points: points))
    }
}
