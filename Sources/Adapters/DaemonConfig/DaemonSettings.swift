import FoundationEssentials
import PriceCore

public enum LogLevel: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error, critical
}

/// The daemon's validated configuration.
public struct DaemonSettings: Sendable, Equatable {
    public var sources: [SourceName]
    public var interval: Duration
    public var timeout: Duration
    public var staleAfter: Duration
    /// Zero means every new quote is written. The default (2m) keeps a day's writes under
    /// 10 MB; a clean stop always writes the latest quote.
    public var persistInterval: Duration
    /// A `watch` client whose stream has not drained for this long is dropped.
    public var watchStall: Duration
    public var binanceURL: String
    public var binanceSymbol: String
    public var cryptoCompareURL: String
    public var coinbaseURL: String
    public var krakenURL: String
    public var bitstampURL: String
    /// Which venue streams trades over WebSocket while REST polling rests.
    public var stream: StreamChoice
    public var binanceStreamURL: String
    public var coinbaseStreamURL: String
    public var krakenStreamURL: String
    /// `watch` subscribers get at most one line per this interval (zero: every update); state
    /// changes are never held back.
    public var publishInterval: Duration
    /// Resolved from the key, its file or the systemd credential (see `APIKeyResolver`).
    public var cryptoCompareAPIKey: APIKey?
    public var cryptoCompareAPIKeyFile: String?
    public var cryptoCompareDailyCalls: Int
    public var mode: SourceMode
    /// A fraction: `0.01` for 1 %.
    public var maximumDeviation: Decimal
    public var consensusMinimum: Int
    public var consensusIncludesUSDT: Bool
    public var stateDirectory: String
    public var socketPath: String
    public var logLevel: LogLevel
    /// Where node_exporter's textfile collector reads the metrics; nil for none.
    public var metricsTextfile: String?
    public var metricsTextfileInterval: Duration
    /// The HTTP listener for `GET /metrics`; nil (the default) for none.
    public var metricsListen: ListenAddress?
    /// Socket connections one local user (UID) may hold at once.
    public var userConnections: Int
    /// `watch` streams one UID may hold; fewer than `userConnections`.
    public var userWatchers: Int

    public static let defaultConfigPath = "/etc/btcpriced/btcpriced.conf"

    /// Defaults follow systemd's directories when it provides them.
    static func defaultValue(for key: SettingKey, environment: [String: String]) -> String {
        switch key {
        case .sources: "binance,coinbase,kraken,bitstamp,cryptocompare"
        case .interval: "1s"
        case .timeout: Self.defaultTimeout(interval: nil).humanReadable
        case .staleAfter: "10s"
        case .persistInterval: "2m"
        case .watchStall: "30s"
        case .binanceURL: "https://api.binance.com"
        case .binanceSymbol: "BTCUSDT"
        case .cryptoCompareURL: "https://min-api.cryptocompare.com"
        case .coinbaseURL: "https://api.coinbase.com"
        case .krakenURL: "https://api.kraken.com"
        case .bitstampURL: "https://www.bitstamp.net"
        case .stream: "auto"
        case .binanceStreamURL: "wss://stream.binance.com:9443"
        case .coinbaseStreamURL: "wss://advanced-trade-ws.coinbase.com"
        case .krakenStreamURL: "wss://ws.kraken.com/v2"
        case .publishInterval: "250ms"
        case .cryptoCompareAPIKey, .cryptoCompareAPIKeyFile: ""
        case .cryptoCompareDailyCalls: "7500"
        case .mode: "fallback"
        case .maximumDeviation: "1%"
        case .consensusMinimum: "2"
        case .consensusUSDT: "no"
        case .stateDirectory: firstDirectory(environment["STATE_DIRECTORY"]) ?? "/var/lib/btcpriced"
        case .socket: firstDirectory(environment["RUNTIME_DIRECTORY"]).map { $0 + "/btcpriced.sock" } ?? "/run/btcpriced/btcpriced.sock"
        case .logLevel: "info"
        case .metricsTextfile, .metricsListen: ""
        case .metricsTextfileInterval: "15s"
        case .userConnections: "128"
        case .userWatchers: "64"
        }
    }

    /// 800 ms, or 80 % of a shorter interval, so an attempt always ends before the next is due.
    public static func defaultTimeout(interval: Duration?) -> Duration {
        guard let interval else { return .milliseconds(800) }
        return min(.milliseconds(800), interval * 4 / 5)
    }

    /// systemd sets `STATE_DIRECTORY=/a:/b` when a unit names several; ours is the first.
    private static func firstDirectory(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }
}

/// `BTCPRICED_STREAM`: `auto` streams from the first source in BTCPRICED_SOURCES that can, and
/// from the next that can when a venue refuses; a named venue streams from that venue only.
public enum StreamChoice: String, Sendable, Equatable, CaseIterable {
    case auto, off, binance, coinbase, kraken

    /// The venues that may stream, in order of preference, given the source chain.
    public func venues(among sources: [SourceName]) -> [SourceName] {
        let streaming: [SourceName] = [.binance, .coinbase, .kraken]
        switch self {
        case .off: return []
        case .auto: return sources.filter { streaming.contains($0) }
        default: return [SourceName(rawValue)]
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

/// `127.0.0.1:9843`, `[::1]:9843`: a literal IP address and a port, no host names.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public var isLoopback: Bool { host == "::1" || host.hasPrefix("127.") }
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
