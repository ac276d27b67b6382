/// What went wrong on the way through a proxy, named so an operator can tell a slow Tor circuit
/// from a dead proxy and from a venue the proxy cannot reach.
public struct ProxyTrouble: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No connection to the venue stood up within the connect budget (the proxy's own
        /// connection, its handshake, a circuit and the TLS handshake).
        case noConnection(within: Duration)
        /// The connection stood, and the venue's answer did not come within the request timeout.
        case noAnswer(within: Duration)
        /// The proxy itself refused the connection: nothing listens there.
        case refused
        /// The proxy took the connection and did not answer its handshake (the SOCKS greeting,
        /// or the HTTP CONNECT request) in time: a hung or half-started proxy (Tor still
        /// bootstrapping, or stuck).
        case noHandshake(within: Duration)
        /// The SOCKS proxy answered the CONNECT with an error (RFC 1928 reply code).
        case socksReply(UInt8)
    }

    public let kind: Kind
    /// The proxy as messages show it, credentials masked (`socks5h://127.0.0.1:9050`).
    public let proxy: String
    public let isSOCKS: Bool

    public init(_ kind: Kind, proxy: String, isSOCKS: Bool) {
        self.kind = kind
        self.proxy = proxy
        self.isSOCKS = isSOCKS
    }

    public var isTimeout: Bool {
        switch kind {
        case .noConnection, .noAnswer, .noHandshake: true
        case .refused, .socksReply: false
        }
    }

    /// Whether the proxy itself is down (it refused, or never finished its handshake), so that
    /// every venue routed through it would fail the same way this moment.
    public var isProxyDown: Bool {
        switch kind {
        case .refused, .noHandshake: true
        case .noConnection, .noAnswer, .socksReply: false
        }
    }

    public var description: String {
        switch kind {
        case .noConnection(let within): "no connection within \(within.humanReadable) through \(proxy) (\(slowHint))"
        case .noAnswer(let within): "no answer within \(within.humanReadable) through \(proxy) (\(slowHint))"
        case .refused: "the proxy \(proxy) refused the connection: " + (isSOCKS ? "is tor (or the SOCKS proxy) running, and is this its SOCKSPort?" : "is the proxy running on that port?")
        case .noHandshake(let within):
            isSOCKS ? "\(proxy) did not answer the SOCKS greeting in \(within.humanReadable): is tor running and bootstrapped (journalctl -u tor), and is this its SOCKSPort?"
                : "\(proxy) did not answer the CONNECT request in \(within.humanReadable): is the proxy up (and is this port an HTTP proxy)?"
        case .socksReply(let code): "the proxy \(proxy) could not reach the venue: \(Self.socksReplyText(code)) (SOCKS reply \(code))"
        }
    }

    private var slowHint: String {
        isSOCKS ? "Tor circuits can take several seconds; is tor running and bootstrapped?" : "is the proxy up, and can it reach the venue?"
    }

    /// RFC 1928 section 6's reply codes; Tor uses them for its own failures too.
    static func socksReplyText(_ code: UInt8) -> String {
        switch code {
        case 1: "general failure"
        case 2: "connection not allowed by the proxy's rules"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused by the venue"
        case 6: "TTL expired (the circuit or the exit timed out)"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "unassigned reply code"
        }
    }
}
