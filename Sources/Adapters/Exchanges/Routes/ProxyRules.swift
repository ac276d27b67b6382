import PriceCore

/// Which proxy, if any, a venue URL goes through: `BTCPRICED_PROXY` for every URL, or without
/// it the conventional variables with curl's rules (`https_proxy`/`HTTPS_PROXY` for https and
/// wss, `http_proxy` in lower case only for http and ws, then `ALL_PROXY`), and `NO_PROXY`
/// in both cases. A loopback URL is proxied like any other unless `NO_PROXY` names it.
public struct ProxyRules: Sendable, Equatable {
    public enum Route: Sendable, Hashable, CustomStringConvertible {
        case direct
        case proxy(ProxyURL)

        public var proxy: ProxyURL? { if case .proxy(let proxy) = self { proxy } else { nil } }

        /// `direct`, or `via socks5h://127.0.0.1:9050 (host name resolved by the proxy)`.
        public var description: String {
            switch self {
            case .direct: "direct"
            case .proxy(let proxy): "via \(proxy)" + (proxy.isSOCKS ? " (host name resolved by the proxy)" : "")
            }
        }
    }

    /// For https and wss URLs, and for http and ws.
    public let forTLS: ProxyURL?
    public let forPlain: ProxyURL?
    public let noProxy: [NoProxyEntry]

    public static let none = ProxyRules(forTLS: nil, forPlain: nil, noProxy: [])

    init(forTLS: ProxyURL?, forPlain: ProxyURL?, noProxy: [NoProxyEntry]) {
        self.forTLS = forTLS
        self.forPlain = forPlain
        self.noProxy = noProxy
    }

    /// `explicit` is `BTCPRICED_PROXY` (empty when unset); the rest comes from `environment`.
    /// An error names the variable it is about, but not `BTCPRICED_PROXY`, whose place (a
    /// file's line) the caller knows better.
    public static func load(explicit: String, environment: [String: String]) -> Result<ProxyRules, ProxyURLError> {
        func first(_ names: [String]) -> (String, String)? {
            for name in names { if let value = environment[name], !value.trimmingBlanks.isEmpty { return (name, value) } }
            return nil
        }
        func proxy(_ found: (String, String)?) -> Result<ProxyURL?, ProxyURLError> {
            guard let (name, text) = found else { return .success(nil) }
            return ProxyURL.parse(text).map(Optional.some).mapError { name == "BTCPRICED_PROXY" ? $0 : ProxyURLError("\(name): \($0.reason)") }
        }
        let noProxy = first(["no_proxy", "NO_PROXY"]).map { NoProxyEntry.list($0.1) } ?? []
        if !explicit.trimmingBlanks.isEmpty {
            return proxy(("BTCPRICED_PROXY", explicit)).map { ProxyRules(forTLS: $0, forPlain: $0, noProxy: noProxy) }
        }
        let all = ["all_proxy", "ALL_PROXY"]
        return proxy(first(["https_proxy", "HTTPS_PROXY"] + all)).flatMap { tls in
            proxy(first(["http_proxy"] + all)).map { ProxyRules(forTLS: tls, forPlain: $0, noProxy: noProxy) }
        }
    }

    /// The route for an `https`, `http`, `wss` or `ws` URL; a URL it cannot read goes direct
    /// (the settings refuse such URLs long before).
    public func route(for url: String) -> Route {
        guard let target = URLTarget(url) else { return .direct }
        return route(tls: target.tls, host: target.host, port: target.port)
    }

    /// The host of a venue URL, lower case; nil for a URL it cannot read.
    public static func host(of url: String) -> String? { URLTarget(url)?.host }

    public func route(tls: Bool, host: String, port: Int) -> Route {
        guard let proxy = tls ? forTLS : forPlain else { return .direct }
        if noProxy.contains(where: { $0.matches(host: host, port: port) }) { return .direct }
        return .proxy(proxy)
    }
}

/// One `NO_PROXY` entry: `*`, a host name (it and its subdomains), an IP address, an IPv4
/// CIDR block, each optionally with `:port`.
public struct NoProxyEntry: Sendable, Equatable {
    enum Pattern: Sendable, Equatable {
        case everything
        case domain(String)
        case address(String)
        case block(network: UInt32, prefix: Int)
    }

    let pattern: Pattern
    let port: Int?

    /// curl's syntax: entries separated by commas or blanks; a leading dot is ignored.
    public static func list(_ text: String) -> [NoProxyEntry] {
        text.split { $0 == "," || $0 == " " || $0 == "\t" }.compactMap { NoProxyEntry(String($0)) }
    }

    init?(_ text: String) {
        var entry = Substring(text.lowercased())
        if entry == "*" { pattern = .everything; port = nil; return }
        var port: Int?
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            let after = entry[entry.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) }
            entry = entry[entry.index(after: entry.startIndex)..<close]
        } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":"), let number = Int(entry[entry.index(after: colon)...]) {
            port = number
            entry = entry[..<colon]
        }
        while entry.hasPrefix(".") { entry = entry.dropFirst() }
        guard !entry.isEmpty else { return nil }
        self.port = port
        if let slash = entry.firstIndex(of: "/") {
            guard let network = IPv4(entry[..<slash]), let prefix = Int(entry[entry.index(after: slash)...]), (0...32).contains(prefix) else { return nil }
            pattern = .block(network: network, prefix: prefix)
        } else if entry.contains(":") || IPv4(entry) != nil {
            pattern = .address(String(entry))
        } else {
            pattern = .domain(String(entry))
        }
    }

    func matches(host: String, port: Int) -> Bool {
        if let own = self.port, own != port { return false }
        let host = host.lowercased()
        switch pattern {
        case .everything: return true
        case .domain(let domain): return host == domain || host.hasSuffix("." + domain)
        case .address(let address): return host == address
        case .block(let network, let prefix):
            guard let address = IPv4(Substring(host)) else { return false }
            let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
            return address & mask == network & mask
        }
    }
}

/// A dotted IPv4 address as a number; nil for anything else.
private func IPv4(_ text: Substring) -> UInt32? {
    let octets = text.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4 else { return nil }
    var value: UInt32 = 0
    for octet in octets {
        guard !octet.isEmpty, octet.count <= 3, octet.allSatisfy(\.isNumber), let byte = UInt8(octet) else { return nil }
        value = value << 8 | UInt32(byte)
    }
    return value
}

/// The scheme, host and port of a venue URL (`https`, `http`, `wss`, `ws`), and what follows
/// the authority.
public struct URLTarget: Sendable, Equatable {
    public let tls: Bool
    /// Lower case; an IPv6 address without its brackets.
    public let host: String
    public let port: Int
    /// Path and query: `/` when the URL has none.
    public let resource: String

    public init?(_ url: String) {
        let schemes: [(String, Bool, Int)] = [("https://", true, 443), ("wss://", true, 443), ("http://", false, 80), ("ws://", false, 80)]
        guard let (prefix, tls, defaultPort) = schemes.first(where: { url.lowercased().hasPrefix($0.0) }) else { return nil }
        let afterScheme = url.dropFirst(prefix.count)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        let rest = afterScheme[authorityEnd...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority, port = defaultPort
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { guard let number = Int(after.dropFirst()) else { return nil }; port = number }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = number
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
        self.tls = tls
        self.host = host.lowercased()
        self.port = port
        resource = rest.isEmpty ? "/" : (rest.hasPrefix("?") ? "/" + rest : String(rest))
    }
}
