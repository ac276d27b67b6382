import Exchanges

/// A setting, by the name it has in both the config file and the environment. What each one
/// means is its entry in `SettingTable`; the venues' own (URLs, a symbol, a key) come from the catalog.
public struct SettingKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Nil for a name that is not a setting of the standard catalog.
    public init?(rawValue: String) {
        guard let key = SettingNames.standard.key(rawValue) else { return nil }
        self = key
    }

    /// Unchecked: for the names listed here and those `SettingNames` knows.
    init(_ name: String) { rawValue = name }

    public var description: String { rawValue }

    public static let sources = SettingKey("BTCPRICED_SOURCES")
    public static let currency = SettingKey("BTCPRICED_CURRENCY")
    public static let currencies = SettingKey("BTCPRICED_CURRENCIES")
    public static let interval = SettingKey("BTCPRICED_INTERVAL")
    public static let timeout = SettingKey("BTCPRICED_TIMEOUT")
    public static let connectTimeout = SettingKey("BTCPRICED_CONNECT_TIMEOUT")
    public static let staleAfter = SettingKey("BTCPRICED_STALE_AFTER")
    public static let serveStaleFor = SettingKey("BTCPRICED_SERVE_STALE_FOR")
    public static let persistInterval = SettingKey("BTCPRICED_PERSIST_INTERVAL")
    public static let watchStall = SettingKey("BTCPRICED_WATCH_STALL")
    public static let stream = SettingKey("BTCPRICED_STREAM")
    public static let publishInterval = SettingKey("BTCPRICED_PUBLISH_INTERVAL")
    public static let mode = SettingKey("BTCPRICED_MODE")
    public static let maximumDeviation = SettingKey("BTCPRICED_MAX_DEVIATION")
    public static let consensusMinimum = SettingKey("BTCPRICED_CONSENSUS_MIN")
    public static let consensusUSDT = SettingKey("BTCPRICED_CONSENSUS_USDT")
    public static let confirmMove = SettingKey("BTCPRICED_CONFIRM_MOVE")
    public static let backfill = SettingKey("BTCPRICED_BACKFILL")
    public static let stateDirectory = SettingKey("BTCPRICED_STATE_DIR")
    public static let limitsDirectory = SettingKey("BTCPRICED_LIMITS_DIR")
    public static let socket = SettingKey("BTCPRICED_SOCKET")
    public static let logLevel = SettingKey("BTCPRICED_LOG_LEVEL")
    public static let metricsTextfile = SettingKey("BTCPRICED_METRICS_TEXTFILE")
    public static let mqttURL = SettingKey("BTCPRICED_MQTT_URL")
    public static let mqttTopic = SettingKey("BTCPRICED_MQTT_TOPIC")
    public static let mqttDiscoveryPrefix = SettingKey("BTCPRICED_MQTT_DISCOVERY_PREFIX")
    public static let mqttPasswordFile = SettingKey("BTCPRICED_MQTT_PASSWORD_FILE")
    public static let metricsTextfileInterval = SettingKey("BTCPRICED_METRICS_TEXTFILE_INTERVAL")
    public static let httpListen = SettingKey("BTCPRICED_HTTP_LISTEN")
    /// The HTTP listener's older name, from when it served only `GET /metrics`.
    public static let metricsListen = SettingKey("BTCPRICED_METRICS_LISTEN")
    public static let httpHosts = SettingKey("BTCPRICED_HTTP_HOSTS")
    public static let httpOrigins = SettingKey("BTCPRICED_HTTP_ORIGINS")
    public static let userConnections = SettingKey("BTCPRICED_USER_CONNECTIONS")
    public static let userWatchers = SettingKey("BTCPRICED_USER_WATCHERS")
    public static let proxy = SettingKey("BTCPRICED_PROXY")
    public static let plainHTTPHosts = SettingKey("BTCPRICED_PLAIN_HTTP_HOSTS")

    /// The setting holding a venue's REST base URL.
    public static func restURL(_ venue: Venue) -> SettingKey { SettingKey(venue.rest.url.key) }
    /// The setting holding a venue's stream URL; nil for a venue without a stream.
    public static func streamURL(_ venue: Venue) -> SettingKey? { venue.stream.map { SettingKey($0.url.key) } }
    /// A venue's own setting (`BTCPRICED_<VENUE>_SYMBOL`).
    public static func venue(_ setting: VenueSetting) -> SettingKey { SettingKey(setting.key) }
    /// The setting naming the file an API key is read from; nil for other settings.
    public static func file(of setting: VenueSetting) -> SettingKey? { setting.fileKey.map(SettingKey.init) }

    /// Every setting of the standard catalog: the general ones, then each venue's own.
    public static var allCases: [SettingKey] { SettingNames.standard.all }

    public static let prefix = "BTCPRICED_"

    /// The hierarchical key swift-configuration uses; its environment encoder maps it back to
    /// the upper-case name (`btcpriced.<venue>.url` ↔ `BTCPRICED_<VENUE>_URL`).
    var configKey: [String] { rawValue.lowercased().split(separator: "_").map(String.init) }
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8), b = Array(b.utf8)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return row[b.count]
}
