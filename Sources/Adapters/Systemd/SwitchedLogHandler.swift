import Logging

/// A log handler whose level follows a shared `LogLevelSwitch` (a reload changes every handler
/// at once) and whose metadata is its own: what the journal and the console handlers share.
public protocol SwitchedLogHandler: LogHandler {
    var level: LogLevelSwitch { get }
}

extension SwitchedLogHandler {
    public var logLevel: Logger.Level {
        get { level.current }
        set { level.current = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
