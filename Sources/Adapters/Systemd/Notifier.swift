import CSystemd
import PriceCore
#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) messages to the service manager. Outside systemd (no NOTIFY_SOCKET) every
/// call is a cheap no-op, so the daemon never needs to know how it was started.
public struct SystemdNotifier: Sendable {
    /// True when a service manager listens for notifications. Read once: the daemon asks before
    /// every status it might send, and its environment does not change while it runs.
    public let isActive: Bool

    public init() {
        isActive = getenv("NOTIFY_SOCKET") != nil
    }

    public func ready(status: String? = nil) {
        send(["READY=1"] + Self.statusField(status))
    }

    public func status(_ text: String) {
        send(Self.statusField(text))
    }

    public func watchdog() {
        send(["WATCHDOG=1"])
    }

    public func stopping(status: String? = nil) {
        send(["STOPPING=1"] + Self.statusField(status))
    }

    /// systemd ≥ 253 requires MONOTONIC_USEC with RELOADING=1 to match reload and READY.
    public func reloading(status: String? = nil) {
        send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"] + Self.statusField(status))
    }

    public func extendTimeout(by duration: Duration) {
        send(["EXTEND_TIMEOUT_USEC=\(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)"])
    }

    /// Never passes unset_environment=1: after the first such call, later notifications would
    /// silently go nowhere.
    func send(_ assignments: [String]) {
        guard isActive else { return }
        _ = sd_notify(0, assignments.joined(separator: "\n"))
    }

    /// The one place a STATUS= value is built: whatever an exchange wrote into an error, it
    /// can add no line (READY=1, STOPPING=1, WATCHDOG=trigger) to the message.
    static func statusField(_ text: String?) -> [String] {
        text.map { ["STATUS=" + singleLine($0)] } ?? []
    }

    static func singleLine(_ text: String) -> String {
        UntrustedText.oneLine(text, limit: 200)
    }

    public static func monotonicMicroseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1000
    }
}

/// The watchdog interval systemd asks for (WatchdogSec=), honouring WATCHDOG_PID.
public enum SystemdWatchdog {
    public static func interval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }
}

/// Sockets passed by systemd socket activation (LISTEN_FDS).
public enum SocketActivation {
    public struct Error: Swift.Error, CustomStringConvertible {
        public let description: String
    }

    /// The inherited listening Unix stream socket, or nil when not socket-activated.
    /// Unsets LISTEN_* so no child could mistake them for its own.
    public static func inheritedUnixStreamListener() throws(Error) -> Int32? {
        let count = sd_listen_fds(1)
        if count < 0 { throw Error(description: "cannot read inherited sockets: \(String(cString: strerror(-count)))") }
        guard count > 0 else { return nil }
        let first = SD_LISTEN_FDS_START
        for fd in first..<(first + count) where sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 {
            return fd
        }
        throw Error(description: "systemd passed \(count) socket(s), but none is a listening Unix stream socket; check ListenStream= in btcpriced.socket")
    }
}

extension SystemdNotifier: HealthNotifier {}
