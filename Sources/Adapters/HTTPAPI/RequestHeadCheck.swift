import NIOHTTP1

/// The first step of every request: its `Host` (exactly one on HTTP/1.1, and one the listener
/// answers, against DNS rebinding) and its `Origin` (for CORS), read in one pass over the fields.
struct RequestHeadCheck {
    /// The answer to a head that may not be answered, and whether it was misdirected.
    struct Refusal {
        let answer: HTTPAnswer
        let misdirected: Bool
    }

    let origin: String?
    let refusal: Refusal?

    init(_ head: HTTPRequestHead, policy: HostPolicy) {
        var host: String?, hosts = 0, origin: String?
        for (name, value) in head.headers {
            switch name.utf8.count {
            case 4 where name.lowercased() == "host": (host, hosts) = (value, hosts + 1)
            case 6 where name.lowercased() == "origin": origin = value
            default: break
            }
        }
        self.origin = origin
        if hosts > 1 || (hosts == 0 && head.version.isAtLeast11) {
            refusal = Refusal(answer: .error(.badRequest, code: "bad-request", "an HTTP/1.1 request needs exactly one Host header"), misdirected: false)
        } else if let host, !policy.allows(host: host) {
            refusal = Refusal(answer: .error(.misdirectedRequest, code: "misdirected",
                                             "this listener answers loopback addresses, localhost and the names in BTCPRICED_HTTP_HOSTS, not \(Self.quoted(host))"),
                              misdirected: true)
        } else {
            refusal = nil
        }
    }

    /// A header value in a message: quoted, cut short and printable.
    static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(64).map { $0.isASCII && !$0.isNewline && ($0.asciiValue ?? 0) >= 0x20 ? $0 : "?" }) + "\""
    }
}
