import Logging
import PriceCore

extension DaemonPorts {
    /// These ports as a companion daemon uses them: one serving a currency beside the primary
    /// (`BTCPRICED_CURRENCIES`). The primary alone speaks to systemd (READY=1, STATUS=, the
    /// watchdog), listens and streams; a companion answers through the primary's listeners
    /// (`CurrencyReplies`) and logs with its currency named.
    public func companion(serving currency: String) -> DaemonPorts {
        var ports = self
        ports.serve = { _ in NoWatchers() }
        ports.notifier = NoServiceManager()
        ports.watchdogInterval = nil
        ports.audience = WatchAudience()
        ports.streams = []
        ports.streamReadLag = .zero
        ports.onReady = { _ in }
        ports.logger[metadataKey: "currency"] = "\(currency)"
        return ports
    }
}

/// A companion's watchers: none (a `watch` follows the primary currency).
struct NoWatchers: WatcherServer {
    func broadcast(_ line: String) {}
    var watcherCount: Int { 0 }
    func shutdown() async {}
}

/// A companion's service manager: none; the primary's status stands for the daemon.
struct NoServiceManager: HealthNotifier {
    var isActive: Bool { false }
    func status(_ text: String) {}
    func watchdog() {}
    func ready(status: String?) {}
    func reloading(status: String?) {}
    func stopping(status: String?) {}
}
