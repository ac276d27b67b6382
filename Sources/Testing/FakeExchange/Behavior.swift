/// The markets the fake serves, on the real exchanges' paths.
public enum Market: String, Sendable, CaseIterable {
    case binance, coinbase, kraken, bitstamp, cryptocompare, mempool
    /// Coinbase's reference rates (`/v2/exchange-rates?currency=BTC`).
    case coinbaseRates = "coinbase-rates"

    /// Binance's 24 h mini ticker, which the daemon asks instead of ticker/price once a minute.
    static let dayTickerPath = "/api/v3/ticker/24hr"
    /// What the fake's 24 h ticker states as the price 24 h ago.
    public static let dayOpen = "100000.00000000"

    /// The day's high and low: spanning the open and the last price, for REST and streams alike,
    /// so the 24 h figures never jump between them (compared as Doubles only to order two
    /// literals; the text is kept).
    static func dayRange(last literal: String) -> (high: String, low: String) {
        (Double(literal) ?? 0) > (Double(dayOpen) ?? 0) ? (literal, dayOpen) : (dayOpen, literal)
    }

    static let coinbaseCandles = "/api/v3/brokerage/market/products/BTC-"
    static let bitstampCandles = "/api/v2/ohlc/btc"

    /// The real path each venue's price (or its candles) lives at, in any currency.
    static func at(path: String) -> Market? {
        switch path {
        case "/api/v3/ticker/price", dayTickerPath, "/api/v3/klines": .binance
        case "/0/public/Ticker", "/0/public/OHLC": .kraken
        case "/data/price": .cryptocompare
        case "/api/v1/prices": .mempool
        case "/v2/exchange-rates": .coinbaseRates
        default:
            if path.hasPrefix("/v2/prices/BTC-"), path.hasSuffix("/spot") { .coinbase }
            else if path.hasPrefix(coinbaseCandles), path.hasSuffix("/candles") { .coinbase }
            else if path.hasPrefix("/api/v2/ticker/btc") || path.hasPrefix(bitstampCandles) { .bitstamp }
            else { nil }
        }
    }

    /// The currency a request asks for, as each venue spells it (`BTC-EUR`, `pair=XBTEUR`,
    /// `btceur`, `tsyms=EUR`, `symbol=BTCEUR`); USD when it names none.
    static func currency(path: String, query: [String: String]) -> String {
        let code: Substring? = if let pair = query["pair"], pair.hasPrefix("XBT") { pair.dropFirst(3) }
            else if let symbols = query["tsyms"] { Substring(symbols) }
            else if let symbol = query["symbol"], symbol.hasPrefix("BTC") { symbol.dropFirst(3) }
            else if path.hasPrefix("/v2/prices/BTC-") { path.dropFirst("/v2/prices/BTC-".count).prefix(3) }
            else if path.hasPrefix("/api/v2/ticker/btc") { path.dropFirst("/api/v2/ticker/btc".count).prefix(3) }
            else if path.hasPrefix(coinbaseCandles) { path.dropFirst(coinbaseCandles.count).prefix(3) }
            else if path.hasPrefix(bitstampCandles) { path.dropFirst(bitstampCandles.count).prefix(3) }
            else { nil }
        return code.map { $0.uppercased() } ?? "USD"
    }

    /// Kraken's result key for a pair: `XXBTZEUR` for the old fiat pairs, `XBTCHF` for newer ones.
    static func krakenKey(currency: String) -> String {
        ["USD", "EUR", "GBP", "JPY", "CAD"].contains(currency) ? "XXBTZ" + currency : "XBT" + currency
    }
}

/// How the fake answers one market's price requests. Realistic bodies by default; each other
/// case reproduces a way the real exchanges fail.
public enum Behavior: Sendable, Equatable {
    /// A normal answer with this exact price literal.
    case price(String)
    /// A normal answer after a delay.
    case slow(milliseconds: Int64, price: String)
    /// A normal answer as a cache serves it: the origin's `Date` this many seconds back, and
    /// `Age` saying so.
    case cached(ageSeconds: Int, price: String)
    /// Accepts the request and never answers.
    case hang
    /// An error status; 429/418 carry Retry-After when given, 403 and 5xx have an HTML body.
    case status(Int, retryAfter: Int? = nil)
    case html
    /// A CDN's bot check: Cloudflare's "Just a moment..." challenge page with 403, as Tor exits
    /// and busy proxies often get.
    case challenge
    /// A 200 body far over the 64 KiB cap.
    case oversized
    case invalidJSON
    /// The exchange's own error object: Binance `{"code":-1121,…}` with 400, CryptoCompare with 200,
    /// Kraken's error array, Coinbase's `errors`, Bitstamp's `status: error`.
    case apiError
    /// The venue's own way of saying "slow down" (Kraken's `EAPI:Rate limit exceeded` with 200,
    /// CryptoCompare's `Type` 99, Bitstamp's 400.002, Coinbase's 429 `rate_limit_exceeded`).
    case rateLimitError
    /// No or a bad API key: CryptoCompare's 401 `{"Err":…}` (`auth-error`), or its older HTTP-200
    /// `Type` 1 body (`auth-error-200`).
    case authError
    case authError200
    /// Binance: another symbol; CryptoCompare: another currency key.
    case wrongSymbol
    /// Exactly this body with status 200.
    case body(String)

    public static let defaultPrice = "114459.80000000"

    /// Parses the control commands scripts send: `price 68901.23`, `slow 2000 68901.23`, `cached 30 68901.23`, `hang`,
    /// `status 503`, `status 429 5`, `html`, `challenge`, `oversized`, `invalid-json`, `api-error`, `rate-limit-error`, `auth-error`, `auth-error-200`,
    /// `wrong-symbol`, `body …`.
    public init?(command: String) {
        let words = command.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first else { return nil }
        switch (verb, words.count) {
        case ("price", 2): self = .price(words[1])
        case ("slow", 3): guard let ms = Int64(words[1]) else { return nil }; self = .slow(milliseconds: ms, price: words[2])
        case ("cached", 3): guard let age = Int(words[1]), age >= 0 else { return nil }; self = .cached(ageSeconds: age, price: words[2])
        case ("hang", 1): self = .hang
        case ("status", 2): guard let code = Int(words[1]) else { return nil }; self = .status(code)
        case ("status", 3): guard let code = Int(words[1]), let after = Int(words[2]) else { return nil }; self = .status(code, retryAfter: after)
        case ("html", 1): self = .html
        case ("challenge", 1): self = .challenge
        case ("oversized", 1): self = .oversized
        case ("invalid-json", 1): self = .invalidJSON
        case ("api-error", 1): self = .apiError
        case ("rate-limit-error", 1): self = .rateLimitError
        case ("auth-error", 1): self = .authError
        case ("auth-error-200", 1): self = .authError200
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
    /// The `Date` header, as every real venue sends it; now unless a cache's answer is played.
    var date: String?
}

/// mempool answers every currency it prices in one body.
enum MempoolCurrencies {
    static let all = ["USD", "EUR", "GBP", "CAD", "CHF", "AUD", "JPY"]
}

/// The fiat currencies the fake's reference table carries: mempool's and some no market trades.
enum ReferenceCurrencies {
    static let all = MempoolCurrencies.all + ["CZK", "HUF", "PLN", "SEK", "ZAR"]
}

enum Payloads {
    /// The shape of Cloudflare's managed challenge, as a client without JavaScript sees it.
    static let cloudflareChallenge = """
    <!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>\
    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow">\
    </head><body><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">api.example.com</h1>\
    <h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>\
    <noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript>\
    </div></div><script>(function(){window._cf_chl_opt={cType: 'managed'};}());</script></body></html>
    """

    static let cloudFrontBlock = """
    <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
    <HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
    <TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY><H1>403 ERROR</H1></BODY></HTML>
    """

    static func response(for behavior: Behavior, market: Market, requestedSymbol: String, currency: String = "USD", path: String = "",
                         query: [String: String] = [:]) -> CannedResponse {
        switch behavior {
        case .price(let literal), .slow(_, let literal):
            if CandlePayloads.isCandlePath(path) {
                return CannedResponse(status: 200, body: CandlePayloads.body(market, query: query, literal: literal, currency: currency))
            }
            if path == Market.dayTickerPath { return CannedResponse(status: 200, body: binanceDayBody(literal: literal, symbol: requestedSymbol)) }
            if let body = listBody(market, literal: literal, query: query) { return CannedResponse(status: 200, body: body) }
            return CannedResponse(status: 200, body: priceBody(market, literal: literal, symbol: requestedSymbol, currency: currency))
        case .cached(let age, let literal):
            var response = response(for: .price(literal), market: market, requestedSymbol: requestedSymbol, currency: currency, path: path)
            response.date = WallClock.httpDate(secondsAgo: age)
            response.headers.append(("Age", String(age)))
            return response
        case .hang:
            return CannedResponse(status: 500, body: "")
        case .status(let code, let retryAfter):
            var response = CannedResponse(status: code, body: errorBody(market, status: code))
            if code == 403 || code >= 500 { response = CannedResponse(status: code, headers: [("Content-Type", "text/html")], body: cloudFrontBlock) }
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .html:
            return CannedResponse(status: 200, headers: [("Content-Type", "text/html")], body: "<html><body>Maintenance</body></html>")
        case .challenge:
            return CannedResponse(status: 403, headers: [("Content-Type", "text/html; charset=UTF-8"), ("cf-mitigated", "challenge")],
                                  body: Payloads.cloudflareChallenge)
        case .oversized:
            return CannedResponse(status: 200, body: "{\"pad\":\"" + String(repeating: "x", count: 100 * 1024) + "\"}")
        case .invalidJSON:
            return CannedResponse(status: 200, body: "{\"symbol\":\"BTCUSDT\",\"price\":")
        case .apiError:
            return apiErrorResponse(market)
        case .rateLimitError:
            return rateLimitResponse(market)
        case .authError:
            return CannedResponse(status: 401, body: #"{"Err":{"type":1,"message":"API key required, please refer to the documentation at https://developers.coindesk.com/","other_info":{}},"Data":{}}"#)
        case .authError200:
            return CannedResponse(status: 200, body: #"{"Response":"Error","Message":"You need a valid auth key or api key to access this endpoint","HasWarning":false,"Type":1,"RateLimit":{},"Data":{}}"#)
        case .wrongSymbol:
            return wrongSymbolResponse(market)
        case .body(let body):
            return CannedResponse(status: 200, body: body)
        }
    }

    /// Each venue's own answer to a request it cannot serve (an unknown pair).
    static func apiErrorResponse(_ market: Market) -> CannedResponse {
        switch market {
        case .binance: return CannedResponse(status: 400, body: #"{"code":-1121,"msg":"Invalid symbol."}"#)
        case .coinbase: return CannedResponse(status: 404, body: #"{"errors":[{"id":"not_found","message":"Invalid base currency"}]}"#)
        case .kraken: return CannedResponse(status: 200, body: #"{"error":["EQuery:Unknown asset pair"]}"#)
        case .bitstamp: return CannedResponse(status: 404, body: #"{"status":"error","reason":"Invalid currency pair.","code":"404.002"}"#)
        case .cryptocompare: return CannedResponse(status: 200, body: #"{"Response":"Error","Message":"fsym param is invalid. (fsym is a required param.)","HasWarning":false,"Type":2,"RateLimit":{},"Data":{},"ParamWithError":"fsym"}"#)
        // Before its price updater has reached any exchange.
        case .mempool: return CannedResponse(status: 200, body: #"{"time":0,"USD":-1,"EUR":-1,"GBP":-1,"CAD":-1,"CHF":-1,"AUD":-1,"JPY":-1}"#)
        case .coinbaseRates: return CannedResponse(status: 400, body: #"{"errors":[{"id":"invalid_request","message":"Invalid currency (BTCX)"}]}"#)
        }
    }

    /// Each venue's own answer over its rate limit.
    static func rateLimitResponse(_ market: Market) -> CannedResponse {
        switch market {
        case .binance: return CannedResponse(status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "30")], body: errorBody(market, status: 429))
        case .coinbase: return CannedResponse(status: 429, body: #"{"errors":[{"id":"rate_limit_exceeded","message":"Too many requests"}]}"#)
        case .kraken: return CannedResponse(status: 200, body: #"{"error":["EAPI:Rate limit exceeded"]}"#)
        case .bitstamp: return CannedResponse(status: 400, body: #"{"status":"error","reason":"Request rejected due to exceeded rate limit.","code":"400.002"}"#)
        case .cryptocompare: return CannedResponse(status: 200, body: #"{"Response":"Error","Message":"You are over your rate limit please upgrade your account!","HasWarning":false,"Type":99,"RateLimit":{"calls_made":{"second":21}},"Data":{}}"#)
        case .mempool: return CannedResponse(status: 429, headers: [("Content-Type", "text/plain")], body: "Too Many Requests")
        case .coinbaseRates: return CannedResponse(status: 429, body: #"{"errors":[{"id":"rate_limit_exceeded","message":"Too many requests"}]}"#)
        }
    }

    /// A well-formed answer for a market other than the one asked.
    static func wrongSymbolResponse(_ market: Market) -> CannedResponse {
        switch market {
        case .binance: return CannedResponse(status: 200, body: #"{"symbol":"ETHUSDT","price":"3021.55000000"}"#)
        case .coinbase: return CannedResponse(status: 200, body: #"{"data":{"amount":"99123.4","base":"BTC","currency":"EUR"}}"#)
        case .kraken: return CannedResponse(status: 200, body: #"{"error":[],"result":{"XXBTZEUR":{"c":["99123.40000","0.01"]}}}"#)
        case .bitstamp: return CannedResponse(status: 200, body: #"{"timestamp":"1763740800","open":"3000.1"}"#)
        case .cryptocompare: return CannedResponse(status: 200, body: #"{"EUR":99123.4}"#)
        case .mempool: return CannedResponse(status: 200, body: "{\"time\":\(WallClock.seconds()),\"EUR\":99123}")
        case .coinbaseRates: return CannedResponse(status: 200, body: #"{"data":{"currency":"ETH","rates":{"CZK":"71234.5"}}}"#)
        }
    }

    /// Each venue's real success body, with the price literal as the venue writes it.
    static func priceBody(_ market: Market, literal: String, symbol: String, currency: String = "USD") -> String {
        switch market {
        case .binance:
            "{\"symbol\":\"\(symbol)\",\"price\":\"\(literal)\"}"
        case .coinbase:
            "{\"data\":{\"amount\":\"\(literal)\",\"base\":\"BTC\",\"currency\":\"\(currency)\"}}"
        case .kraken:
            "{\"error\":[],\"result\":{\"\(Market.krakenKey(currency: currency))\":{\"a\":[\"\(literal)\",\"1\",\"1.000\"],\"b\":[\"\(literal)\",\"2\",\"2.000\"],\"c\":[\"\(literal)\",\"0.00120000\"],\"v\":[\"1021.41960396\",\"2841.69284418\"],\"p\":[\"85571.70346\",\"85102.06118\"],\"t\":[26874,67542],\"l\":[\"84620.00000\",\"83820.10000\"],\"h\":[\"86420.00000\",\"86420.00000\"],\"o\":\"85091.40000\"}}}"
        case .bitstamp:
            "{\"timestamp\":\"\(WallClock.seconds())\",\"open\":\"85091\",\"high\":\"86420\",\"low\":\"83820\",\"last\":\"\(literal)\",\"volume\":\"1512.70381035\",\"vwap\":\"85210\",\"bid\":\"85865\",\"ask\":\"85867\",\"side\":\"0\",\"open_24\":\"84712\",\"percent_change_24\":\"1.36\"}"
        case .cryptocompare:
            "{\"\(currency)\":\(literal)}"
        case .mempool:
            "{\"time\":\(WallClock.seconds())," + MempoolCurrencies.all.map { "\"\($0)\":\(literal)" }.joined(separator: ",") + "}"
        case .coinbaseRates:
            // Every currency at the literal (the fake has one price a market), among a token's
            // rate as the real table carries them.
            "{\"data\":{\"currency\":\"BTC\",\"rates\":{\"ETH\":\"34.61538461538461\","
                + ReferenceCurrencies.all.map { "\"\($0)\":\"\(literal)\"" }.joined(separator: ",") + "}}}"
        }
    }

    /// The answer to a list of pairs, as each venue that takes one writes it: Kraken's Ticker
    /// with `pair=XBTUSD,XBTEUR` (each under its own key), Binance's ticker with
    /// `symbols=["BTCUSDT","BTCEUR"]` (an array), CryptoCompare's `tsyms=USD,EUR` (one object);
    /// nil for a request of one pair.
    static func listBody(_ market: Market, literal: String, query: [String: String]) -> String? {
        switch market {
        case .kraken:
            guard let pairs = query["pair"]?.split(separator: ","), pairs.count > 1 else { return nil }
            let entries = pairs.map { pair in
                "\"\(Market.krakenKey(currency: String(pair.dropFirst(3))))\":{\"c\":[\"\(literal)\",\"0.00120000\"],\"l\":[\"84620.00000\",\"83820.10000\"],\"h\":[\"86420.00000\",\"86420.00000\"],\"o\":\"85091.40000\"}"
            }
            return "{\"error\":[],\"result\":{" + entries.joined(separator: ",") + "}}"
        case .binance:
            guard let list = query["symbols"] else { return nil }
            // `["BTCUSDT","BTCEUR"]`, percent-encoded as a URL carries it.
            let symbols = list.split(separator: ",").map { item in
                ["%5B", "%5D", "%22", "[", "]", "\""].reduce(String(item)) { $0.replacing($1, with: "") }
            }
            return "[" + symbols.map { "{\"symbol\":\"\($0)\",\"price\":\"\(literal)\"}" }.joined(separator: ",") + "]"
        case .cryptocompare:
            guard let codes = query["tsyms"]?.split(separator: ","), codes.count > 1 else { return nil }
            return "{" + codes.map { "\"\($0)\":\(literal)" }.joined(separator: ",") + "}"
        default:
            return nil
        }
    }

    /// Binance's `type=MINI` 24 h ticker: the open is `Market.dayOpen`, the high and low span it
    /// and the last price (compared as Doubles here only to order two literals; the text is kept).
    static func binanceDayBody(literal: String, symbol: String) -> String {
        let (high, low) = Market.dayRange(last: literal)
        return "{\"symbol\":\"\(symbol)\",\"openPrice\":\"\(Market.dayOpen)\",\"highPrice\":\"\(high)\",\"lowPrice\":\"\(low)\",\"lastPrice\":\"\(literal)\",\"volume\":\"18523.44219000\",\"quoteVolume\":\"1583254113.51892010\",\"openTime\":1763654400000,\"closeTime\":1763740799999,\"firstId\":5498342180,\"lastId\":5500212944,\"count\":1870765}"
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
