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

    /// The listeners systemd passed: the Unix stream socket (btcpriced.socket) and a TCP one
    /// (btcpriced-http.socket, for the HTTP listener); each nil when not passed.
    public struct Listeners: Sendable, Equatable {
        public var unix: Int32?
        public var http: Int32?

        public init(unix: Int32? = nil, http: Int32? = nil) {
            self.unix = unix
            self.http = http
        }
    }

    /// The literal address a listening TCP socket is bound to (`127.0.0.1`, `::`); nil when the
    /// kernel cannot say.
    public static func boundAddress(of descriptor: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(storage.ss_family)
        let converted: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
                }
            default: nil
            }
        }
        return converted == nil ? nil : String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The inherited listening sockets, all nil when not socket-activated. Unsets LISTEN_* so no
    /// child could mistake them for its own.
    public static func inheritedListeners() throws(Error) -> Listeners {
        let count = sd_listen_fds(1)
        if count < 0 { throw Error(description: "cannot read inherited sockets: \(String(cString: strerror(-count)))") }
        var listeners = Listeners()
        guard count > 0 else { return listeners }
        let first = SD_LISTEN_FDS_START
        for fd in first..<(first + count) {
            if listeners.unix == nil, sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 {
                listeners.unix = fd
            } else if listeners.http == nil, sd_is_socket_inet(fd, Int32(AF_UNSPEC), Int32(SOCK_STREAM.rawValue), 1, 0) > 0 {
                listeners.http = fd
            }
        }
        guard listeners != Listeners() else {
            throw Error(description: "systemd passed \(count) socket(s), but none is a listening stream socket; check ListenStream= in btcpriced.socket and btcpriced-http.socket")
        }
        return listeners
    }
}

extension SystemdNotifier: HealthNotifier {}
