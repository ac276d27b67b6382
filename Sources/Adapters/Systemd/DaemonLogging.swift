import Logging

/// Where the daemon's log lines go: the journal's native protocol when systemd connected
/// stderr to it (structured fields, priorities), else plain lines on stderr.
public enum DaemonLogging {
    public static func logger(identifier: String, level: LogLevelSwitch, environment: [String: String]) -> Logger {
        let toJournal = JournalStream.isStandardErrorConnected(environment: environment)
        return Logger(label: identifier) { _ -> any LogHandler in
            toJournal ? JournalLogHandler(identifier: identifier, level: level) : ConsoleLogHandler(level: level)
        }
    }
}
