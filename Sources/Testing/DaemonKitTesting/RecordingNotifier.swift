import PriceCore
import Synchronization

/// What systemd would hear, kept instead of sent.
public final class RecordingNotifier: HealthNotifier {
    /// False stands for a daemon run without a service manager (no NOTIFY_SOCKET).
    public let isActive: Bool
    public init(isActive: Bool = true) { self.isActive = isActive }
    public let statuses = Mutex<[String]>([])
    public let pings = Mutex(0)
    public func status(_ text: String) { statuses.withLock { $0.append(text) } }
    public func watchdog() { pings.withLock { $0 += 1 } }
    /// READY=1, RELOADING=1 and STOPPING=1, in order, each with its status.
    public let lifecycle = Mutex<[String]>([])
    public func ready(status: String?) { lifecycle.withLock { $0.append("READY=1 \(status ?? "")") } }
    public func reloading(status: String?) { lifecycle.withLock { $0.append("RELOADING=1 \(status ?? "")") } }
    public func stopping(status: String?) { lifecycle.withLock { $0.append("STOPPING=1 \(status ?? "")") } }
    public var statusCount: Int { statuses.withLock { $0.count } }
    public var pingCount: Int { pings.withLock { $0 } }
}
