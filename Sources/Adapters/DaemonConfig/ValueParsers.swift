import Exchanges
import FoundationEssentials
import PriceCore
import WireProtocol

/// Parsers for the value types settings use. Each returns a reason on failure; the caller adds
/// where the value came from.
enum ValueParsers {
    /// `250ms`, `1s`, `2m`, `1h`, or plain (possibly fractional) seconds such as `1.5`.
    static func duration(_ text: String) -> Result<Duration, InvalidValue> {
        let units: [(suffix: String, milliseconds: Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        var number = Substring(text)
        var scale: Int64 = 1000
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.milliseconds
            break
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts[0].count <= 9, let whole = Int64(parts[0]) else {
            return .failure("\(quoted(text)) is not a duration; use e.g. 250ms, 1s, 2m or plain seconds")
        }
        var milliseconds = whole * scale
        if parts.count == 2 {
            let fraction = parts[1].prefix(6)
            guard let digits = Int64(fraction) else { return .failure("\(quoted(text)) is not a duration") }
            var denominator: Int64 = 1
            for _ in 0..<fraction.count { denominator *= 10 }
            let extra = digits * scale
            guard extra % denominator == 0 else {
                return .failure("\(quoted(text)) is finer than a millisecond")
            }
            milliseconds += extra / denominator
        }
        return .success(.milliseconds(milliseconds))
    }

    /// An absolute http(s) URL with no query or fragment; plain http only to loopback.
    /// `plainHosts`: the LAN hosts `BTCPRICED_PLAIN_HTTP_HOSTS` allows over plain http.
    static func baseURL(_ text: String, plainHosts: [String] = []) -> Result<String, InvalidValue> {
        endpointURL(text, secure: "https", plain: "http", example: Venue.catalog.exampleURL, plainHosts: plainHosts)
    }

    /// A WebSocket URL: `wss://` (TLS, always verified), or `ws://` for loopback test servers.
    static func streamURL(_ text: String, plainHosts: [String] = []) -> Result<String, InvalidValue> {
        endpointURL(text, secure: "wss", plain: "ws", example: Venue.catalog.exampleStreamURL, plainHosts: plainHosts)
    }

    /// Plain http(s) is refused on the public internet. Three exceptions: loopback (test
    /// servers), `.onion` (Tor authenticates the address and encrypts the path; the loader then
    /// requires a SOCKS route), and the LAN hosts the user named in BTCPRICED_PLAIN_HTTP_HOSTS.
    private static func endpointURL(_ text: String, secure: String, plain: String, example: String,
                                    plainHosts: [String]) -> Result<String, InvalidValue> {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix(secure + "://") {
            scheme = secure
        } else if lower.hasPrefix(plain + "://") {
            scheme = plain
        } else {
            return .failure("\(quoted(text)) is not \(plain == "http" ? "an" : "a") \(plain)(s) URL; expected e.g. \(example)")
        }
        let rest = text.dropFirst(scheme.count + 3)
        guard !rest.contains("?"), !rest.contains("#"), !rest.contains(where: { $0 == " " || $0.isNewline }) else {
            return .failure("\(quoted(text)) must be a base URL without spaces, query or fragment")
        }
        let authority = rest.prefix { $0 != "/" }
        let hostAndPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let host: String
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return .failure("\(quoted(text)) has an unclosed IPv6 bracket") }
            host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
        } else {
            let parts = hostAndPort.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return .failure("\(quoted(text)) has a malformed host") }
            if parts.count == 2, !(parts[1].allSatisfy(\.isNumber) && UInt16(parts[1]) != nil) {
                return .failure("\(quoted(text)) has an invalid port")
            }
            host = String(parts[0])
        }
        guard !host.isEmpty else { return .failure("\(quoted(text)) has no host") }
        if scheme == plain && !isLoopback(host) && !isOnion(host) && !plainHosts.contains(host.lowercased()) {
            return .failure("\(quoted(text)) uses plain \(plain); only \(secure) is allowed (\(plain) only for loopback test servers, .onion addresses through Tor, and LAN hosts named in BTCPRICED_PLAIN_HTTP_HOSTS)")
        }
        return .success(text)
    }

    /// Empty for none, else an absolute path ending in `.prom`, as node_exporter's textfile
    /// collector reads only those.
    /// An absolute directory, or empty for none.
    static func nonEmpty(_ text: String) -> Result<String, InvalidValue> {
        text.isEmpty ? .failure("must not be empty") : .success(text)
    }

    static func optionalDirectory(_ text: String) -> Result<String?, InvalidValue> {
        if text.isEmpty { return .success(nil) }
        guard text.hasPrefix("/") else { return .failure("\(quoted(text)) is not an absolute directory; use e.g. /var/lib/btcpriced-limits") }
        return .success(text)
    }

    static func optionalAbsolutePath(_ text: String) -> Result<String?, InvalidValue> {
        if text.isEmpty { return .success(nil) }
        guard text.hasPrefix("/"), !text.hasSuffix("/") else {
            return .failure("\(quoted(text)) is not an absolute file path; use e.g. /var/lib/prometheus/node-exporter/btcpriced.prom")
        }
        guard text.hasSuffix(".prom") else {
            return .failure("\(quoted(text)) does not end in .prom, so node_exporter's textfile collector would ignore it")
        }
        return .success(text)
    }

    /// Empty for none, else `IPv4:PORT` or `[IPv6]:PORT` with a literal address.
    static func listenAddress(_ text: String) -> Result<ListenAddress?, InvalidValue> {
        if text.isEmpty { return .success(nil) }
        let example = "use an address and port such as 127.0.0.1:9843 or [::1]:9843"
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure("\(quoted(text)) is not an address and port; \(example)")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" }), host.contains(":") else {
                return .failure("\(quoted(text)) does not hold a literal IPv6 address; \(example)")
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return .failure("\(quoted(text)) is not an address and port; \(example)") }
            host = parts[0]
            portText = parts[1]
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            guard octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && UInt8($0) != nil }) else {
                return .failure("\(quoted(text)) does not hold a literal IPv4 address (host names are not resolved); \(example)")
            }
        }
        guard portText.count <= 5, portText.allSatisfy(\.isNumber), let port = Int(portText), (1...65535).contains(port) else {
            return .failure("\(quoted(text)) has no valid port (1 to 65535); \(example)")
        }
        return .success(ListenAddress(host: String(host), port: port))
    }

    static func isOnion(_ host: String) -> Bool { host.lowercased().hasSuffix(".onion") }

    /// One of `BTCPRICED_PLAIN_HTTP_HOSTS`: a host name; never a public suffix pattern.
    static func plainHost(_ host: String) -> Result<String, InvalidValue> {
        guard host.contains("*") || host.contains("/") || host.contains(":") else { return .success(host) }
        return .failure("\(quoted(host)) is not a host name; list exact host names such as umbrel.local or 192.168.1.20")
    }

    /// One of `BTCPRICED_HTTP_HOSTS`: a name the HTTP listener's `Host` header may carry, such
    /// as `umbrel.local` behind a LAN name, or `btc.example.org` behind a reverse proxy.
    static func hostName(_ host: String) -> Result<String, InvalidValue> {
        guard !host.allSatisfy({ $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "." || $0 == "-" || $0 == "_" }) else {
            return .success(host)
        }
        return .failure("\(quoted(host)) is not a host name; list exact names without port or scheme, such as umbrel.local or btc.example.org")
    }

    /// One of `BTCPRICED_HTTP_ORIGINS`: a web origin allowed to read the HTTP API from a page,
    /// exactly as a browser sends it: `https://example.org`, `http://localhost:3000`.
    static func origin(_ origin: String) -> Result<String, InvalidValue> {
        let scheme = origin.hasPrefix("https://") ? "https://" : origin.hasPrefix("http://") ? "http://" : nil
        let authority = scheme.map { origin.dropFirst($0.count) } ?? ""
        let valid = scheme != nil && !authority.isEmpty && !authority.hasPrefix(":")
            && authority.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:[]".contains($0)) }
        guard valid else {
            return .failure("\(quoted(origin)) is not a web origin; list them as a browser sends them, scheme and host with an optional port and no path, such as https://example.org or http://localhost:3000")
        }
        return .success(origin)
    }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" { return true }
        let octets = lower.split(separator: ".")
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    static func sources(_ text: String, catalog: [Venue] = Venue.catalog) -> Result<[SourceName], InvalidValue> {
        let known = catalog.map(\.name)
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingBlanks).lowercased() }
        guard !names.isEmpty, !names.contains("") else {
            return .failure("\(quoted(text)) names no sources; use e.g. \(catalog.keylessDefaults.map(\.rawValue).joined(separator: ","))")
        }
        var result: [SourceName] = []
        for name in names {
            guard known.contains(SourceName(name)) else {
                return .failure("unknown source \(quoted(name)); known sources: \(known.map(\.rawValue).joined(separator: ", "))")
            }
            guard !result.contains(SourceName(name)) else { return .failure("source \(name) is listed twice") }
            result.append(SourceName(name))
        }
        return .success(result)
    }

    /// An ISO 4217 code, any case: `EUR`, `jpy`.
    static func currency(_ text: String) -> Result<Currency, InvalidValue> {
        let code = String(text.trimmingBlanks)
        if let currency = Currency(code: code) { return .success(currency) }
        let hint = Currency.suggestion(for: code).map { "; did you mean \($0)?" } ?? "; use an ISO 4217 code such as USD, EUR, GBP or JPY"
        return .failure("\(quoted(text)) is not an ISO 4217 currency code\(hint)")
    }

    /// `USD,EUR JPY`: ISO 4217 codes at commas or blanks, each once, at most `maximumCurrencies`.
    static func currencies(_ text: String) -> Result<[Currency], InvalidValue> {
        var currencies: [Currency] = []
        for word in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            switch currency(String(word)) {
            case .success(let code) where currencies.contains(code): return .failure("\(code) is listed twice; name each currency once")
            case .success(let code): currencies.append(code)
            case .failure(let reason): return .failure(reason)
            }
        }
        guard currencies.count <= maximumCurrencies else {
            return .failure("\(currencies.count) currencies listed; one daemon serves at most \(maximumCurrencies)")
        }
        return .success(currencies)
    }

    /// What one daemon serves at most: each currency holds a week of minutes and ten years of days.
    static let maximumCurrencies = 32

    /// A venue's BTC market (`VenueSetting.Kind.symbol`): `BTC` then its quote asset, which the
    /// quotes are labelled with.
    static func symbol(_ text: String) -> Result<String, InvalidValue> {
        let valid = (5...20).contains(text.utf8.count) && text.hasPrefix("BTC")
            && text.utf8.allSatisfy { (65...90).contains($0) || (48...57).contains($0) }
        return valid ? .success(text) : .failure("\(quoted(text)) is not a BTC market symbol like BTCUSDT or BTCUSDC (BTC, then the quote asset; A–Z, 0–9)")
    }

    static func wholeNumber(in range: ClosedRange<Int>) -> (String) -> Result<Int, InvalidValue> {
        { text in
            guard text.utf8.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text), range.contains(value) else {
                return .failure("\(quoted(text)) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return .success(value)
        }
    }

    /// `1%`, `0.5%`: a percentage from above 0 to 50, kept exact.
    static func percentage(_ text: String) -> Result<Decimal, InvalidValue> {
        let usage: InvalidValue = "\(quoted(text)) is not a percentage like 1% or 0.5% (above 0, at most 50%)"
        guard text.hasSuffix("%") else { return .failure(usage) }
        let number = String(text.dropLast())
        guard number.utf8.count <= 12, number.utf8.allSatisfy({ (48...57).contains($0) || $0 == 46 }),
              number.first != ".", number.last != ".", number.filter({ $0 == "." }).count <= 1,
              let value = Decimal(string: number), value > 0, value <= 50 else { return .failure(usage) }
        return .success(value / 100)
    }

    /// `5%`, or `off` for none.
    static func percentageOrOff(_ text: String) -> Result<Decimal?, InvalidValue> {
        if text.lowercased() == "off" { return .success(nil) }
        return percentage(text).map { $0 }.mapError { _ in "\(quoted(text)) is not a percentage like 5% (above 0, at most 50%), or off" }
    }

    static func yesNo(_ text: String) -> Result<Bool, InvalidValue> {
        switch text.lowercased() {
        case "yes", "true", "on", "1": .success(true)
        case "no", "false", "off", "0": .success(false)
        default: .failure("\(quoted(text)) is not yes or no")
        }
    }

    static func onOff(_ text: String) -> Result<Bool, InvalidValue> {
        yesNo(text).mapError { _ in "\(quoted(text)) is not on or off" }
    }

    static func mode(_ text: String) -> Result<SourceMode, InvalidValue> {
        SourceMode(rawValue: text.lowercased()).map { .success($0) }
            ?? .failure("unknown mode \(quoted(text)); use fallback or consensus")
    }
}

/// Why a value was rejected, without where it came from.
struct InvalidValue: Error, ExpressibleByStringInterpolation {
    let reason: String
    init(stringLiteral value: String) { self.reason = value }
    init(stringInterpolation: DefaultStringInterpolation) { self.reason = String(stringInterpolation: stringInterpolation) }
}
