import CSystemd
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A log level that can be changed at run time (on reload) for every handler at once.
public final class LogLevelSwitch: Sendable {
    private let level: Mutex<Logger.Level>
    public init(_ level: Logger.Level) { self.level = Mutex(level) }
    public var current: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}

/// A swift-log backend that writes native journal entries with sd_journal_sendv(3): priority,
/// code location and metadata become fields that `journalctl -o json` and filters can use.
public struct JournalLogHandler: SwitchedLogHandler {
    public let identifier: String
    public let level: LogLevelSwitch
    public var metadata: Logger.Metadata = [:]

    public init(identifier: String, level: LogLevelSwitch) {
        self.identifier = identifier
        self.level = level
    }

    public func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(UntrustedText.oneLine(event.message.description, limit: 2048))",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            fields.append("\(JournalField.name(for: key))=\(UntrustedText.oneLine("\(value)"))")
        }
        Self.send(fields)
    }

    /// syslog priorities, as journald stores them.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// sd_journal_send is variadic and cannot be called from Swift; sendv takes an iovec array.
    /// Fields are laid out in one buffer so all iovecs point into a single pinned allocation.
    static func send(_ fields: [String]) {
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = storage.count
            storage.append(contentsOf: field.utf8)
            ranges.append(start..<storage.count)
        }
        storage.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            _ = vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}

/// journald drops fields whose names are not `[A-Z0-9_]`, start with `_` or a digit, or are
/// longer than 64 bytes — silently. Metadata keys are mapped so that never happens.
public enum JournalField {
    static let passThrough: Set<String> = ["MESSAGE_ID"]

    public static func name(for key: String) -> String {
        var mapped = String(key.uppercased().unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "A"..."Z", "0"..."9": Character(scalar)
            default: "_"
            }
        })
        if !passThrough.contains(mapped) && !mapped.hasPrefix("BTCPRICED_") {
            mapped = "BTCPRICED_" + mapped
        }
        return String(mapped.prefix(64))
    }
}

/// Whether stderr goes straight to the journal, per systemd's documented JOURNAL_STREAM check.
public enum JournalStream {
    public static func isStandardErrorConnected(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
