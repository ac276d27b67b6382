#if canImport(Glibc)
import Glibc
#endif
import Logging
import Systemd

/// Plain `level: message key=value` lines on stderr; the journal or a terminal adds the time.
struct ConsoleLogHandler: LogHandler {
    let level: LogLevelSwitch
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { level.current }
        set { level.current = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
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
enum StandardError {
    static func write(_ text: String) {
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
