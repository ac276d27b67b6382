import Logging

/// Keeps every line logged through `logger` (info and above, as the daemon logs by default)
/// and lets a test await a line instead of polling for it.
public final class LogRecorder: Sendable {
    public struct Line: Sendable, Equatable, CustomStringConvertible {
        public let level: Logger.Level
        public let message: String
        public var description: String { "\(level): \(message)" }
    }

    public let lines = Awaitable<[Line]>([])

    public init() {}

    public var logger: Logger { Logger(label: "btcpriced") { [self] _ in Handler(recorder: self) } }

    public func messages(at level: Logger.Level) -> [String] { lines.value.filter { $0.level == level }.map(\.message) }

    /// Returns once a line at `level` says exactly `message`; false if the wait was cancelled first.
    @discardableResult
    public func until(_ level: Logger.Level, _ message: String) async -> Bool {
        await lines.until { $0.contains(Line(level: level, message: message)) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.update { $0.append(Line(level: event.level, message: event.message.description)) }
        }
    }
}
