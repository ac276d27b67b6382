import WireProtocol

/// Which `Host` headers the listener answers, and which web origins may read its answers.
///
/// A web page can make a browser send requests to any loopback port, and by rebinding its own
/// DNS name to 127.0.0.1 read the answers as its own (DNS rebinding). The browser then sends
/// the attacker's name as `Host`, so the listener answers only names that cannot be rebound:
/// literal loopback addresses, `localhost`, and the names the operator lists
/// (`BTCPRICED_HTTP_HOSTS`, for a LAN name or a reverse proxy). A non-loopback listener also
/// answers its own literal address (any literal address when it listens on all of them), so a
/// Prometheus server elsewhere can scrape it by IP; a literal address cannot be rebound either.
public struct HostPolicy: Sendable {
    public let hosts: Set<String>
    public let origins: Set<String>
    /// The listener's own address when it is not loopback, answered as a literal too.
    private let ownAddress: String?
    private let anyLiteral: Bool

    /// `listenHost` is the listener's literal address (`127.0.0.1`, `::1`, `0.0.0.0`).
    public init(listenHost: String, hosts: [String] = [], origins: [String] = []) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.origins = Set(origins.map { $0.lowercased() })
        let host = listenHost.lowercased()
        anyLiteral = host == "0.0.0.0" || (host.contains(":") && host.allSatisfy { $0 == ":" || $0 == "0" })
        ownAddress = Self.isLoopbackLiteral(host) ? nil : host
    }

    /// Whether a request with this `Host` header is answered. The usual ones (`127.0.0.1:9843`,
    /// `localhost:9843`) are told from their bytes, without copying the header.
    public func allows(host header: String) -> Bool {
        if Self.isPlainLoopback(header.utf8) { return true }
        guard let name = Self.hostName(header) else { return false }
        if name == "localhost" || Self.isLoopbackLiteral(name) || hosts.contains(name) || name == ownAddress { return true }
        return anyLiteral && Self.isLiteral(name)
    }

    /// `127.0.0.1` or `localhost` (any case), each with an optional port. Asked of every
    /// request, so the two names are read from static text: an array of their bytes would be
    /// two allocations a request (a third of the listener's, `perf probe` on malloc).
    static func isPlainLoopback(_ header: String.UTF8View) -> Bool {
        var bytes = header.makeIterator(), matched = 0
        let loopback = Self.loopbackName.utf8Start, localhost = Self.localhostName.utf8Start
        var candidates = (loopback: true, localhost: true)
        while let byte = bytes.next() {
            if byte == UInt8(ascii: ":") {
                guard matched == 9, candidates.loopback || candidates.localhost else { return false }
                var digits = 0
                while let digit = bytes.next() {
                    guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { return false }
                    digits += 1
                }
                return digits > 0 && digits <= 5
            }
            guard matched < 9 else { return false }
            candidates.loopback = candidates.loopback && byte == loopback[matched]
            candidates.localhost = candidates.localhost && byte | 0x20 == localhost[matched]
            guard candidates.loopback || candidates.localhost else { return false }
            matched += 1
        }
        return matched == 9
    }

    private static let loopbackName: StaticString = "127.0.0.1"
    private static let localhostName: StaticString = "localhost"

    /// The headers that let `origin` read the answer, or none for an origin not listed.
    public func corsHeaders(origin: String?) -> [(String, String)] {
        guard let origin, origins.contains(origin.lowercased()) else { return [] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// `127.0.0.1:9843` → `127.0.0.1`, `[::1]:9843` → `::1`, `Localhost` → `localhost`; nil
    /// for a header that is not a host and optional port.
    static func hostName(_ header: String) -> String? {
        let text = header.lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty, parts.count <= 2,
              parts.count == 1 || (!parts[1].isEmpty && parts[1].allSatisfy(\.isASCIIDigit)) else { return nil }
        return String(name)
    }

    static func isLoopbackLiteral(_ host: String) -> Bool {
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }

    static func isLiteral(_ host: String) -> Bool {
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }
    }
}

