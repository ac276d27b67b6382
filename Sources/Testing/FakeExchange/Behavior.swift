/// The two markets the fake serves, on the real exchanges' paths.
public enum Market: String, Sendable, CaseIterable {
    case binance, cryptocompare
}

/// How the fake answers one market's price requests. Realistic bodies by default; each other
/// case reproduces a way the real exchanges fail.
public enum Behavior: Sendable, Equatable {
    /// A normal answer with this exact price literal.
    case price(String)
    /// A normal answer after a delay.
    case slow(milliseconds: Int64, price: String)
    /// Accepts the request and never answers.
    case hang
    /// An error status; 429/418 carry Retry-After when given, 403 and 5xx have an HTML body.
    case status(Int, retryAfter: Int? = nil)
    case html
    /// A 200 body far over the 64 KiB cap.
    case oversized
    case invalidJSON
    /// The exchange's own error object: Binance `{"code":-1121,…}` with 400, CryptoCompare with 200.
    case apiError
    /// Binance: another symbol; CryptoCompare: another currency key.
    case wrongSymbol
    /// Exactly this body with status 200.
    case body(String)

    public static let defaultPrice = "114459.80000000"

    /// Parses the control commands scripts send: `price 68901.23`, `slow 2000 68901.23`, `hang`,
    /// `status 503`, `status 429 5`, `html`, `oversized`, `invalid-json`, `api-error`, `wrong-symbol`, `body …`.
    public init?(command: String) {
        let words = command.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first else { return nil }
        switch (verb, words.count) {
        case ("price", 2): self = .price(words[1])
        case ("slow", 3): guard let ms = Int64(words[1]) else { return nil }; self = .slow(milliseconds: ms, price: words[2])
        case ("hang", 1): self = .hang
        case ("status", 2): guard let code = Int(words[1]) else { return nil }; self = .status(code)
        case ("status", 3): guard let code = Int(words[1]), let after = Int(words[2]) else { return nil }; self = .status(code, retryAfter: after)
        case ("html", 1): self = .html
        case ("oversized", 1): self = .oversized
        case ("invalid-json", 1): self = .invalidJSON
        case ("api-error", 1): self = .apiError
        case ("wrong-symbol", 1): self = .wrongSymbol
        case ("body", _) where words.count >= 2: self = .body(String(command.drop { $0 == " " }.dropFirst(4).drop { $0 == " " }))
        default: return nil
        }
    }
}

/// A canned HTTP response.
struct CannedResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = [("Content-Type", "application/json")]
    var body: String
}

enum Payloads {
    static let cloudFrontBlock = """
    <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
    <HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
    <TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY><H1>403 ERROR</H1></BODY></HTML>
    """

    static func response(for behavior: Behavior, market: Market, requestedSymbol: String) -> CannedResponse {
        switch behavior {
        case .price(let literal), .slow(_, let literal):
            return CannedResponse(status: 200, body: priceBody(market, literal: literal, symbol: requestedSymbol))
        case .hang:
            return CannedResponse(status: 500, body: "")
        case .status(let code, let retryAfter):
            var response = CannedResponse(status: code, body: errorBody(market, status: code))
            if code == 403 || code >= 500 { response = CannedResponse(status: code, headers: [("Content-Type", "text/html")], body: cloudFrontBlock) }
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .html:
            return CannedResponse(status: 200, headers: [("Content-Type", "text/html")], body: "<html><body>Maintenance</body></html>")
        case .oversized:
            return CannedResponse(status: 200, body: "{\"pad\":\"" + String(repeating: "x", count: 100 * 1024) + "\"}")
        case .invalidJSON:
            return CannedResponse(status: 200, body: "{\"symbol\":\"BTCUSDT\",\"price\":")
        case .apiError:
            switch market {
            case .binance: return CannedResponse(status: 400, body: "{\"code\":-1121,\"msg\":\"Invalid symbol.\"}")
            case .cryptocompare:
                return CannedResponse(status: 200, body: "{\"Response\":\"Error\",\"Message\":\"You are over your rate limit please upgrade your account!\",\"HasWarning\":false,\"Type\":99,\"RateLimit\":{\"calls_made\":{\"second\":21}},\"Data\":{}}")
            }
        case .wrongSymbol:
            switch market {
            case .binance: return CannedResponse(status: 200, body: "{\"symbol\":\"ETHUSDT\",\"price\":\"3021.55000000\"}")
            case .cryptocompare: return CannedResponse(status: 200, body: "{\"EUR\":99123.4}")
            }
        case .body(let body):
            return CannedResponse(status: 200, body: body)
        }
    }

    static func priceBody(_ market: Market, literal: String, symbol: String) -> String {
        switch market {
        case .binance: "{\"symbol\":\"\(symbol)\",\"price\":\"\(literal)\"}"
        case .cryptocompare: "{\"USD\":\(literal)}"
        }
    }

    static func errorBody(_ market: Market, status: Int) -> String {
        switch (market, status) {
        case (.binance, 429): "{\"code\":-1003,\"msg\":\"Too many requests; current limit of IP(127.0.0.1) is 6000 requests per minute.\"}"
        case (.binance, 418): "{\"code\":-1003,\"msg\":\"Way too many requests; IP(127.0.0.1) banned until 1763740000000.\"}"
        case (.binance, 451): "{\"code\":0,\"msg\":\"Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms.\"}"
        default: "{\"error\":\"HTTP \(status)\"}"
        }
    }
}
