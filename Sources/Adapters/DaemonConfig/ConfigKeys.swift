/// Every setting, by the name it has in both the config file and the environment.
public enum SettingKey: String, CaseIterable, Sendable {
    case sources = "BTCPRICED_SOURCES"
    case interval = "BTCPRICED_INTERVAL"
    case timeout = "BTCPRICED_TIMEOUT"
    case staleAfter = "BTCPRICED_STALE_AFTER"
    case persistInterval = "BTCPRICED_PERSIST_INTERVAL"
    case watchStall = "BTCPRICED_WATCH_STALL"
    case binanceURL = "BTCPRICED_BINANCE_URL"
    case binanceSymbol = "BTCPRICED_BINANCE_SYMBOL"
    case cryptoCompareURL = "BTCPRICED_CRYPTOCOMPARE_URL"
    case coinbaseURL = "BTCPRICED_COINBASE_URL"
    case krakenURL = "BTCPRICED_KRAKEN_URL"
    case bitstampURL = "BTCPRICED_BITSTAMP_URL"
    case stream = "BTCPRICED_STREAM"
    case binanceStreamURL = "BTCPRICED_BINANCE_STREAM_URL"
    case coinbaseStreamURL = "BTCPRICED_COINBASE_STREAM_URL"
    case krakenStreamURL = "BTCPRICED_KRAKEN_STREAM_URL"
    case publishInterval = "BTCPRICED_PUBLISH_INTERVAL"
    case cryptoCompareAPIKey = "BTCPRICED_CRYPTOCOMPARE_API_KEY"
    case cryptoCompareAPIKeyFile = "BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE"
    case cryptoCompareDailyCalls = "BTCPRICED_CRYPTOCOMPARE_DAILY_CALLS"
    case mode = "BTCPRICED_MODE"
    case maximumDeviation = "BTCPRICED_MAX_DEVIATION"
    case consensusMinimum = "BTCPRICED_CONSENSUS_MIN"
    case consensusUSDT = "BTCPRICED_CONSENSUS_USDT"
    case stateDirectory = "BTCPRICED_STATE_DIR"
    case socket = "BTCPRICED_SOCKET"
    case logLevel = "BTCPRICED_LOG_LEVEL"
    case metricsTextfile = "BTCPRICED_METRICS_TEXTFILE"
    case metricsTextfileInterval = "BTCPRICED_METRICS_TEXTFILE_INTERVAL"
    case metricsListen = "BTCPRICED_METRICS_LISTEN"
    case userConnections = "BTCPRICED_USER_CONNECTIONS"
    case userWatchers = "BTCPRICED_USER_WATCHERS"

    public static let prefix = "BTCPRICED_"

    /// The hierarchical key swift-configuration uses; its environment encoder maps it back to
    /// the upper-case name (`btcpriced.binance.url` ↔ `BTCPRICED_BINANCE_URL`).
    var configKey: [String] { rawValue.lowercased().split(separator: "_").map(String.init) }

    /// The closest known key, for "did you mean" hints on typos.
    static func suggestion(for unknown: String) -> SettingKey? {
        allCases.min { editDistance($0.rawValue, unknown) < editDistance($1.rawValue, unknown) }
            .flatMap { editDistance($0.rawValue, unknown) <= 4 ? $0 : nil }
    }
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
