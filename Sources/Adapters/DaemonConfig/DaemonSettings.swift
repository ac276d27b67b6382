import Exchanges
import FoundationEssentials
import PriceCore
import WireProtocol

public enum LogLevel: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical
}

/// The daemon's validated configuration.
public struct DaemonSettings: Sendable, Equatable {
    /// The venues the settings were read for (Venue.catalog but in tests).
    public var catalog: [Venue]
    public var sources: [SourceName] = []
    /// What prices are asked in (ISO 4217); only venues with a BTC market in it are asked.
    public var currency: Currency = .usd
    /// `BTCPRICED_CURRENCIES`, when given: every currency served, the primary (`currency`) first.
    public var currencies: [Currency] = []
    public var interval: Duration = .seconds(1)
    /// A direct request's timeout, the connection included.
    public var timeout: Duration = .zero
    /// A proxied request's timeout, counted once the connection stands.
    public var timeoutThroughProxy: Duration = .zero
    /// `BTCPRICED_CONNECT_TIMEOUT` where given: a direct connection's own budget.
    public var connectTimeout: Duration? = nil
    /// The budget for a connection through a proxy (the proxy, a circuit, TLS).
    public var connectTimeoutThroughProxy: Duration = ThroughProxy.connectTimeout
    public var staleAfter: Duration = .zero
    /// How long the HTTP compatibility routes still answer a stale quote with a number.
    public var serveStaleFor: Duration = .zero
    /// Zero means every new quote is written. The default (2m) keeps a day's writes under
    /// 10 MB; a clean stop always writes the latest quote.
    public var persistInterval: Duration = .zero
    /// A `watch` client whose stream has not drained for this long is dropped.
    public var watchStall: Duration = .zero
    /// Each venue's REST base URL, by venue name (every catalog entry has one).
    public var restURLs: [SourceName: String] = [:]
    /// Which venue streams trades over WebSocket while REST polling rests.
    public var stream: StreamChoice = .auto
    /// Each streaming venue's stream URL, by venue name.
    public var streamURLs: [SourceName: String] = [:]
    /// `watch` subscribers get at most one line per this interval (zero: every update); state
    /// changes are never held back.
    public var publishInterval: Duration = .zero
    /// The venues' own settings that are not secrets (a symbol, a budget), validated, by key.
    public var venueValues: [String: String] = [:]
    /// Each keyed venue's API key, resolved from the key, its file or the systemd credential
    /// (see `APIKeyResolver`), by venue.
    public var apiKeys: [SourceName: APIKey] = [:]
    /// Each keyed venue's key file setting, where given, by venue.
    public var apiKeyFiles: [SourceName: String] = [:]
    public var mode: SourceMode = .fallback
    /// A fraction: `0.01` for 1 %.
    public var maximumDeviation: Decimal = 0
    public var consensusMinimum: Int = 0
    public var consensusIncludesUSDT: Bool = false
    /// A fraction: a larger move from a recent quote waits for a second venue; nil when off.
    public var confirmMove: Decimal? = nil
    /// Whether the minutes of the last week the history lacks are filled from venues' candles at start.
    public var backfill: Bool = false
    public var stateDirectory: String = ""
    /// Where the instances on this host keep each venue's shared pace; nil for one instance alone.
    public var limitsDirectory: String? = nil
    public var socketPath: String = ""
    public var logLevel: LogLevel = .info
    /// Where node_exporter's textfile collector reads the metrics; nil for none.
    public var metricsTextfile: String? = nil
    public var metricsTextfileInterval: Duration = .zero
    /// The HTTP listener (the API, the dashboard and `GET /metrics`); none by default.
    public var http: HTTPSettings = HTTPSettings()
    /// MQTT publishing for Home Assistant; off without a broker.
    public var mqtt = MQTTSettings()
    /// Socket connections one local user (UID) may hold at once.
    public var userConnections: Int = 0
    /// `watch` streams one UID may hold; fewer than `userConnections`.
    public var userWatchers: Int = 0
    /// Which proxy each venue URL goes through: `BTCPRICED_PROXY`, else curl's variables.
    public var proxies: ProxyRules = .none
    /// LAN hosts a venue URL may reach over plain `http://` (`BTCPRICED_PLAIN_HTTP_HOSTS`).
    public var plainHTTPHosts: [String] = []

    /// Every field blank, for the setting table to fill (`SettingsLoader`).
    init(catalog: [Venue]) { self.catalog = catalog }

    public func restURL(_ venue: Venue) -> String { restURLs[venue.name] ?? venue.rest.url.defaultURL }

    /// How long a request to `url` may take on its route.
    public func timeouts(for url: String) -> RouteTimeouts {
        proxies.route(for: url).proxy == nil
            ? RouteTimeouts(connect: connectTimeout, answer: timeout)
            : RouteTimeouts(connect: connectTimeoutThroughProxy, answer: timeoutThroughProxy)
    }

    /// Whether any venue of the chain asks through a proxy: the route-aware defaults then apply.
    public var asksThroughProxy: Bool {
        sources.compactMap(venue(named:)).contains { proxies.route(for: restURL($0)).proxy != nil }
    }
    public func streamURL(_ venue: Venue) -> String? { streamURLs[venue.name] ?? venue.stream?.url.defaultURL }

    /// The market choices every venue's requests are built from.
    public var venueOptions: VenueOptions {
        var values = venueValues
        for venue in catalog {
            if let setting = venue.apiKey, let key = apiKeys[venue.name] { values[setting.key] = key.value }
        }
        return VenueOptions(currency: currency.code, values: values)
    }

    /// A venue's own setting, validated, or its default.
    public func value(_ setting: VenueSetting) -> String { venueValues[setting.key] ?? setting.defaultValue }

    /// Whether `venue` can be asked as far as keys go: it needs none, or has one.
    public func hasKey(for venue: Venue) -> Bool { !venue.needsAPIKey || apiKeys[venue.name] != nil }

    public static let defaultConfigPath = "/etc/btcpriced/btcpriced.conf"

    /// The file read without `--config`: btcpriced.conf in systemd's ConfigurationDirectory= when
    /// a unit names one (the user unit's ~/.config/btcpriced), otherwise the system's.
    public static func configPath(environment: [String: String]) -> String {
        firstDirectory(environment["CONFIGURATION_DIRECTORY"]).map { $0 + "/btcpriced.conf" } ?? defaultConfigPath
    }

    /// The settings' catalog entry for `name`.
    public func venue(named name: SourceName) -> Venue? { catalog.named(name) }

    /// 800 ms, or 80 % of a shorter interval, so an attempt always ends before the next is due;
    /// through a proxy 10 s, as a Tor circuit's round trips need.
    public static func defaultTimeout(interval: Duration?, throughProxy: Bool = false) -> Duration {
        let longest = throughProxy ? ThroughProxy.timeout : .milliseconds(800)
        guard let interval else { return longest }
        return min(longest, interval * 4 / 5)
    }

    /// The defaults that change when the chain asks through a proxy (Tor above all): a circuit
    /// takes seconds to build and each round trip hundreds of milliseconds, and an exit deserves
    /// gentler polling than a direct link. Settings the user gives keep their values.
    public enum ThroughProxy {
        public static let timeout: Duration = .seconds(10)
        public static let connectTimeout: Duration = .seconds(30)
        /// At least 10 s, and longer than the 10 s timeout.
        public static let interval: Duration = .seconds(15)
        public static let staleAfter: Duration = .seconds(60)
        /// Below these, a given setting draws a warning naming what to set.
        public static let shortestTimeout: Duration = .seconds(5)
        public static let shortestConnectTimeout: Duration = .seconds(10)
        public static let shortestInterval: Duration = .seconds(10)
    }

    /// systemd sets `STATE_DIRECTORY=/a:/b` when a unit names several; ours is the first.
    static func firstDirectory(_ value: String?) -> String? { directories(value).first }

    static func directories(_ value: String?) -> [String] {
        (value ?? "").split(separator: ":").filter { !$0.isEmpty }.map(String.init)
    }
}

/// `BTCPRICED_STREAM`: `auto` streams from the first source in BTCPRICED_SOURCES that can, and
/// from the next that can when a venue refuses; a named venue streams from that venue only.
public enum StreamChoice: Sendable, Equatable, CustomStringConvertible {
    case auto, off
    case only(Venue)

    /// `auto`, `off`, or a venue of `catalog` with a stream, case-insensitive.
    public init?(_ text: String, catalog: [Venue] = Venue.catalog) {
        switch text.lowercased() {
        case "auto": self = .auto
        case "off": self = .off
        case let name:
            guard let venue = catalog.named(SourceName(name)), venue.stream != nil else { return nil }
            self = .only(venue)
        }
    }

    /// Every value the setting takes.
    public static func choices(in catalog: [Venue] = Venue.catalog) -> [String] {
        ["auto", "off"] + catalog.filter { $0.stream != nil }.map(\.name.rawValue)
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .off: "off"
        case .only(let venue): venue.name.rawValue
        }
    }

    /// Why a named venue cannot stream `currency` (it has no such market), with the venues
    /// that can; nil when the choice can stream it (`auto` picks among those that do).
    public func problem(currency: String, catalog: [Venue] = Venue.catalog) -> String? {
        guard case .only(let venue) = self, !venue.quotes(currency) else { return nil }
        let streaming = catalog.filter { $0.stream != nil && $0.quotes(currency) }.map(\.name.rawValue)
        let others: String = switch streaming.count {
        case 0: "no venue btcpriced knows streams BTC/\(currency); set BTCPRICED_STREAM=off"
        case 1: "\(streaming[0]) streams BTC/\(currency); set BTCPRICED_STREAM=auto or \(streaming[0])"
        default: "\(streaming.dropLast().joined(separator: ", ")) and \(streaming.last!) stream BTC/\(currency); set BTCPRICED_STREAM=auto or one of them"
        }
        return "BTCPRICED_STREAM=\(venue.name): \(venue.name) has no BTC/\(currency) market; \(others)"
    }

    /// The venues that may stream, in order of preference, given the source chain.
    public func venues(among sources: [SourceName], in catalog: [Venue] = Venue.catalog) -> [Venue] {
        switch self {
        case .off: []
        case .auto: sources.compactMap(catalog.named).filter { $0.stream != nil }
        case .only(let venue): [venue]
        }
    }
}

public enum SourceMode: String, Sendable, Equatable, CaseIterable {
    /// The first source in the chain that answers.
    case fallback
    /// The median of every eligible source, once enough agree.
    case consensus
}

/// A secret that never prints: not in logs, `--check-config`, STATUS= or error messages.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "(set, \(value.utf8.count) characters)" }
    public var debugDescription: String { description }
}

/// `BTCPRICED_HTTP_LISTEN` and whom the listener answers.
public struct HTTPSettings: Sendable, Equatable {
    /// Where it listens; nil for no listener.
    public var address: ListenAddress?
    /// The setting that named the address (`BTCPRICED_HTTP_LISTEN`, or its alias
    /// `BTCPRICED_METRICS_LISTEN`), for messages.
    public var setting: SettingKey = .httpListen
    /// Host names the `Host` header may carry besides loopback addresses and `localhost`
    /// (`BTCPRICED_HTTP_HOSTS`), lower case.
    public var hosts: [String] = []
    /// Origins that get CORS headers (`BTCPRICED_HTTP_ORIGINS`), as `scheme://host[:port]`.
    public var origins: [String] = []

    public init(address: ListenAddress? = nil, setting: SettingKey = .httpListen, hosts: [String] = [], origins: [String] = []) {
        self.address = address
        self.setting = setting
        self.hosts = hosts
        self.origins = origins
    }

    /// The dashboard's URL, for the log, `--check-config` and run-dev.
    public var dashboardURL: String? { address.map { "http://\($0)/" } }
}

/// `127.0.0.1:9843`, `[::1]:9843`: a literal IP address and a port, no host names.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public var isLoopback: Bool { host == "::1" || host.hasPrefix("127.") }
    /// `0.0.0.0` or `::`: every address of the host.
    public var isWildcard: Bool { host == "0.0.0.0" || host.allSatisfy { $0 == ":" || $0 == "0" } }
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
