import Logging

extension Logger.Level {
    /// The configured level (`BTCPRICED_LOG_LEVEL`) as swift-log's.
    public init(_ level: LogLevel) {
        self = Logger.Level(rawValue: level.rawValue) ?? .info
    }
}
