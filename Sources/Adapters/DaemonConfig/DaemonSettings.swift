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
    /// Zero means every new quote is written.
    public var persistInterval: Duration
    public var binanceURL: String
    public var binanceSymbol: String
    public var cryptoCompareURL: String
    public var stateDirectory: String
    public var socketPath: String
    public var logLevel: LogLevel

    public static let defaultConfigPath = "/etc/btcpriced/btcpriced.conf"

    /// Defaults follow systemd's directories when it provides them.
    static func defaultValue(for key: SettingKey, environment: [String: String]) -> String {
        switch key {
        case .sources: "binance,cryptocompare"
        case .interval: "1s"
        case .timeout: "800ms"
        case .staleAfter: "10s"
        case .persistInterval: "0"
        case .binanceURL: "https://api.binance.com"
        case .binanceSymbol: "BTCUSDT"
        case .cryptoCompareURL: "https://min-api.cryptocompare.com"
        case .stateDirectory: firstDirectory(environment["STATE_DIRECTORY"]) ?? "/var/lib/btcpriced"
        case .socket: firstDirectory(environment["RUNTIME_DIRECTORY"]).map { $0 + "/btcpriced.sock" } ?? "/run/btcpriced/btcpriced.sock"
        case .logLevel: "info"
        }
    }

    /// systemd sets `STATE_DIRECTORY=/a:/b` when a unit names several; ours is the first.
    private static func firstDirectory(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }
}
