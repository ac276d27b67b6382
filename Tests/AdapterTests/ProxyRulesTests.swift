import Exchanges
import Testing

@Suite("Proxies: BTCPRICED_PROXY, curl's variables and NO_PROXY")
struct ProxyRulesTests {
    func rules(_ explicit: String = "", _ environment: [String: String] = [:]) throws -> ProxyRules {
        try ProxyRules.load(explicit: explicit, environment: environment).get()
    }

    @Test("proxy URLs as curl reads them", arguments: [
        ("socks5h://127.0.0.1:9050", "socks5h://127.0.0.1:9050"),
        ("socks5://localhost:1080/", "socks5://localhost:1080"),
        ("http://proxy.corp:3128", "http://proxy.corp:3128"),
        ("proxy.corp:8080", "http://proxy.corp:8080"),
        ("http://proxy.corp", "http://proxy.corp:1080"),
        ("http://alice:s%40cret@proxy.corp:3128", "http://***@proxy.corp:3128"),
        ("http://[::1]:3128", "http://[::1]:3128"),
        (" HTTP://Proxy.Corp:3128 ", "http://proxy.corp:3128"),
    ])
    func parses(text: String, shown: String) throws {
        #expect(try ProxyURL.parse(text).get().description == shown)
    }

    @Test func credentialsAreDecodedAndNeverShown() throws {
        let proxy = try ProxyURL.parse("http://alice:s%40cret@proxy.corp:3128").get()
        #expect(proxy.user == "alice" && proxy.password == "s@cret")
        #expect(!proxy.description.contains("alice") && !proxy.description.contains("cret"))
    }

    @Test("bad proxy URLs say why, without the password", arguments: [
        ("https://proxy.corp:3128", "a TLS connection to the proxy itself (https://) is not supported"),
        ("ftp://proxy.corp:21", "unknown proxy scheme \"ftp\""),
        ("socks5h://bob:hunter2@127.0.0.1:9050", "SOCKS proxy credentials are not supported"),
        ("http://proxy.corp:99999", "the port must be a number from 1 to 65535"),
        ("http://proxy.corp:http", "the port must be a number from 1 to 65535"),
        ("http://:3128", "no valid proxy host"),
        ("http://proxy.corp:3128/path", "a proxy URL has no path"),
    ])
    func refuses(text: String, reason: String) {
        switch ProxyURL.parse(text) {
        case .success(let proxy): Issue.record("\(text) was accepted as \(proxy)")
        case .failure(let error):
            #expect(error.reason.contains(reason), "\(error.reason)")
            #expect(!error.reason.contains("hunter2"), "\(error.reason)")
        }
    }

    @Test func theOwnSettingWinsOverTheConventionalVariables() throws {
        let rules = try rules("socks5h://127.0.0.1:9050", ["HTTPS_PROXY": "http://corp:3128", "http_proxy": "http://corp:3128"])
        #expect(rules.route(for: "https://api.binance.com").description == "via socks5h://127.0.0.1:9050 (host name resolved by the proxy)")
        #expect(rules.route(for: "ws://127.0.0.1:8080/v2").description == "via socks5h://127.0.0.1:9050 (host name resolved by the proxy)")
    }

    /// curl: https_proxy or HTTPS_PROXY for https (and wss), http_proxy in lower case only for
    /// http (and ws), ALL_PROXY for both when the specific one is unset.
    @Test func conventionalVariablesFollowCurl() throws {
        let tls = try rules("", ["HTTPS_PROXY": "http://tls:1", "HTTP_PROXY": "http://ignored:2"])
        #expect(tls.route(for: "https://api.kraken.com").proxy?.host == "tls")
        #expect(tls.route(for: "wss://ws.kraken.com/v2").proxy?.host == "tls")
        #expect(tls.route(for: "http://127.0.0.1:8080") == .direct, "HTTP_PROXY in upper case is not read, as curl")
        let lower = try rules("", ["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "http_proxy": "http://plain:3"])
        #expect(lower.route(for: "https://x.example").proxy?.host == "lower")
        #expect(lower.route(for: "ws://x.example").proxy?.host == "plain")
        let all = try rules("", ["ALL_PROXY": "socks5h://all:9050", "https_proxy": "http://tls:1"])
        #expect(all.route(for: "https://x.example").proxy?.host == "tls")
        #expect(all.route(for: "http://x.example").proxy?.host == "all")
        #expect(try rules().route(for: "https://x.example") == .direct)
        #expect(try rules("", ["https_proxy": "  "]).route(for: "https://x.example") == .direct, "an empty variable is unset")
    }

    @Test func aBadVariableIsNamed() {
        #expect(throws: ProxyURLError.self) { try rules("", ["HTTPS_PROXY": "ftp://x:1"]) }
        if case .failure(let error) = ProxyRules.load(explicit: "", environment: ["ALL_PROXY": "gopher://x"]) {
            #expect(error.reason.hasPrefix("ALL_PROXY: "), "\(error.reason)")
        } else {
            Issue.record("gopher:// was accepted")
        }
    }

    @Test func noProxyTakesSuffixesWildcardsAddressesBlocksAndPorts() throws {
        let proxy = "socks5h://127.0.0.1:9050"
        func route(_ url: String, noProxy: String) throws -> ProxyRules.Route {
            try rules(proxy, ["NO_PROXY": noProxy]).route(for: url)
        }
        #expect(try route("https://api.binance.com", noProxy: "binance.com") == .direct)
        #expect(try route("https://binance.com", noProxy: ".binance.com") == .direct, "a leading dot also covers the domain itself, as curl")
        #expect(try route("https://notbinance.com", noProxy: "binance.com") != .direct, "a suffix matches at a dot only")
        #expect(try route("https://api.kraken.com", noProxy: "*") == .direct)
        #expect(try route("http://127.0.0.1:8080", noProxy: "localhost, 127.0.0.1") == .direct)
        #expect(try route("http://127.0.0.1:8080", noProxy: "localhost") != .direct, "loopback is proxied unless named, as curl")
        #expect(try route("http://10.1.2.3", noProxy: "10.0.0.0/8") == .direct)
        #expect(try route("http://11.1.2.3", noProxy: "10.0.0.0/8") != .direct)
        #expect(try route("http://umbrel.local:3006", noProxy: "umbrel.local:3006") == .direct)
        #expect(try route("http://umbrel.local:80", noProxy: "umbrel.local:3006") != .direct, "a port limits the entry to it")
        #expect(try route("http://[::1]:8080", noProxy: "::1") == .direct)
        #expect(try route("https://API.Binance.COM", noProxy: "binance.com") == .direct, "host names compare without case")
        #expect(try rules(proxy, ["no_proxy": "a.example", "NO_PROXY": "b.example"]).route(for: "https://b.example") != .direct,
                "no_proxy wins over NO_PROXY, as curl")
    }
}
