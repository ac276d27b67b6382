import Foundation
import Logging
import Systemd
import Testing

@Suite("libsystemd binding")
struct SystemdTests {
    @Test("journal field names are mapped to what journald keeps", arguments: [
        ("source", "BTCPRICED_SOURCE"), ("price", "BTCPRICED_PRICE"), ("error", "BTCPRICED_ERROR"),
        ("message_id", "MESSAGE_ID"), ("http.status-code", "BTCPRICED_HTTP_STATUS_CODE"), ("_private", "BTCPRICED__PRIVATE"),
        ("9lives", "BTCPRICED_9LIVES"), ("naïve key", "BTCPRICED_NA_VE_KEY"), ("BTCPRICED_SOURCE", "BTCPRICED_SOURCE"),
    ])
    func fieldNames(key: String, expected: String) {
        let name = JournalField.name(for: key)
        #expect(name == expected)
        #expect(name.utf8.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 95 })
        #expect(name.first != "_" && !(name.first?.isNumber ?? true))
    }

    @Test func longFieldNamesAreCutTo64Bytes() {
        #expect(JournalField.name(for: String(repeating: "k", count: 100)).utf8.count == 64)
    }

    @Test func prioritiesFollowSyslog() {
        let expected: [(Logger.Level, Int)] = [(.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2)]
        for (level, priority) in expected { #expect(JournalLogHandler.priority(level) == priority) }
    }

    @Test func journalStreamMustMatchStandardError() {
        var info = stat()
        fstat(2, &info)
        #expect(JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!JournalStream.isStandardErrorConnected(environment: [:]))
    }

    @Test(.enabled(if: getenv("NOTIFY_SOCKET") == nil, "skipped: the tests run under a service manager (NOTIFY_SOCKET is set)"))
    func outsideSystemdNotificationsAreNoOps() {
        let notifier = SystemdNotifier()
        #expect(!notifier.isActive)
        notifier.ready(status: "x")
        notifier.watchdog()
        #expect(SystemdWatchdog.interval() == nil)
    }

    @Test(.enabled(if: getenv("LISTEN_FDS") == nil, "skipped: the tests themselves were socket-activated (LISTEN_FDS is set)"))
    func noInheritedSocketsOutsideSocketActivation() throws {
        #expect(try SocketActivation.inheritedListeners() == SocketActivation.Listeners())
    }

    /// MONOTONIC_USEC= must be CLOCK_MONOTONIC's (sd_notify(3)): bracketed by two readings of it.
    @Test func monotonicMicrosecondsAreTheMonotonicClocks() {
        func monotonic() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        }
        let before = monotonic()
        let read = SystemdNotifier.monotonicMicroseconds()
        let after = monotonic()
        #expect(before <= read && read <= after, "\(before) ≤ \(read) ≤ \(after)")
    }
}

@Suite("Untrusted text in notify fields and logs")
struct UntrustedTextTests {
    @Test func anExchangeCannotAddNotifyLines() {
        let hostile = "binance: exchange error: oops\nSTOPPING=1\nWATCHDOG=trigger\r\u{1B}[31m"
        let field = UntrustedText.oneLine(hostile, limit: 200)
        #expect(!field.contains("\n") && !field.contains("\r") && !field.contains("\u{1B}"))
        #expect(field.contains("\\nSTOPPING=1"))
    }

    @Test func longValuesAreCut() {
        let line = UntrustedText.oneLine(String(repeating: "a", count: 1_000_000))
        #expect(line.count == UntrustedText.defaultLimit + 1)
        #expect(line.hasSuffix("…"))
        #expect(UntrustedText.oneLine("plain text") == "plain text")
    }
}
