#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Plain `level: message key=value` lines on stderr, for a terminal or a service manager that
/// is not systemd's journal (JournalLogHandler); whatever shows them adds the time.
public struct ConsoleLogHandler: SwitchedLogHandler {
    public let level: LogLevelSwitch
    public var metadata: Logger.Metadata = [:]

    public init(level: LogLevelSwitch) {
        self.level = level
    }

    public func log(event: LogEvent) {
        var line = "\(event.level): \(UntrustedText.oneLine(event.message.description, limit: 2048))"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        // The journal keeps every field; a console line skips what its message already says.
        let message = event.message.description
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where key != "message_id" && !message.contains("\(value)") {
            line += " \(key)=\(UntrustedText.oneLine("\(value)"))"
        }
        line += "\n"
        StandardError.write(line)
    }
}

/// One write(2) per line, so concurrent log lines never interleave mid-line.
public enum StandardError {
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }
}
