import PriceCore

/// A proxy as `BTCPRICED_PROXY` or the conventional variables name it:
/// `http://[user:pass@]host:port`, `socks5://host:port` or `socks5h://host:port`.
public struct ProxyURL: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// HTTP CONNECT (and plain forwarding for `http://` venues).
        case http
        /// SOCKS5. btcpriced hands the proxy the host name for both spellings: it never
        /// resolves a venue's name itself while a SOCKS proxy is in the way.
        case socks5, socks5h
    }

    public let kind: Kind
    public let host: String
    public let port: Int
    /// Basic credentials for an HTTP proxy: secrets, never shown.
    public let user: String?
    public let password: String?
    /// How messages name it, when that is not its own URL: a venue's loopback relay is named
    /// after the proxy it relays to (`VenueCircuits`).
    public let shownAs: String?

    public init(kind: Kind, host: String, port: Int, user: String? = nil, password: String? = nil, shownAs: String? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.shownAs = shownAs
    }

    /// The URL with any credentials masked, for logs, `--check-config` and `btcctl sources`.
    public var description: String { shownAs ?? "\(kind.rawValue)://\(user == nil ? "" : "***@")\(hostAndPort)" }

    var hostAndPort: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    public var isSOCKS: Bool { kind != .http }

    /// Like curl: no scheme means `http://`, no port means 1080. Nil with the reason otherwise.
    public static func parse(_ text: String) -> Result<ProxyURL, ProxyURLError> {
        let trimmed = String(text.trimmingBlanks)
        var rest = Substring(trimmed)
        var kind = Kind.http
        if let separator = rest.firstRange(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            switch scheme {
            case "http": kind = .http
            case "socks5": kind = .socks5
            case "socks5h": kind = .socks5h
            case "https":
                return .failure(ProxyURLError("\(shown(trimmed)): a TLS connection to the proxy itself (https://) is not supported; use http://, socks5:// or socks5h://"))
            default:
                return .failure(ProxyURLError("\(shown(trimmed)): unknown proxy scheme \"\(scheme.prefix(12))\"; use http://, socks5:// or socks5h://"))
            }
            rest = rest[separator.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                return .failure(ProxyURLError("\(shown(trimmed)): a proxy URL has no path; give scheme://host:port"))
            }
            rest = rest[..<slash]
        }
        var user: String?, password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard kind == .http else {
                return .failure(ProxyURLError("\(masked(trimmed)): SOCKS proxy credentials are not supported; use an HTTP proxy for authentication"))
            }
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].percentDecoded, let secret = parts.count > 1 ? parts[1].percentDecoded : "" else {
                return .failure(ProxyURLError("\(masked(trimmed)): the credentials are not valid percent-encoding"))
            }
            user = name
            password = secret
        }
        var host = rest, port = 1080
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return .failure(badPort(trimmed)) }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let number = Int(rest[rest.index(after: colon)...]) else { return .failure(badPort(trimmed)) }
            port = number
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" || $0 == ":") }) else {
            return .failure(ProxyURLError("\(masked(trimmed)): no valid proxy host; give scheme://host:port, e.g. socks5h://127.0.0.1:9050"))
        }
        guard (1...65_535).contains(port) else { return .failure(badPort(trimmed)) }
        return .success(ProxyURL(kind: kind, host: String(host).lowercased(), port: port, user: user, password: password))
    }

    private static func badPort(_ text: String) -> ProxyURLError {
        ProxyURLError("\(masked(text)): the port must be a number from 1 to 65535")
    }

    /// The text with anything before an `@` hidden: it may hold a password.
    static func masked(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return shown(text) }
        let scheme = text.firstRange(of: "://").map { String(text[..<$0.upperBound]) } ?? ""
        return shown(scheme + "***@" + text[text.index(after: at)...])
    }

    private static func shown(_ text: String) -> String { "\"\(text.prefix(80))\"" }
}

/// Why a proxy URL was refused; the text never holds its credentials.
public struct ProxyURLError: Error, Sendable, Equatable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

