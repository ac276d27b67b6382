import PriceCore
import Synchronization

/// What systemd hears about the daemon's health: STATUS= lines (at most about one a second,
/// and only when they change) and watchdog pings gated on fetch-loop progress, on an injected clock.
public final class DaemonHealth<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private struct State {
        var gate: WatchdogGate<C.Instant>?
        var throttle = StatusThrottle<C.Instant>()
    }

    private let notifier: any HealthNotifier
    private let state: Mutex<State>
    public let clock: C

    public init(notifier: any HealthNotifier, watchdogInterval: Duration?, clock: C) {
        self.notifier = notifier
        self.clock = clock
        self.state = Mutex(State(gate: watchdogInterval.map { WatchdogGate(interval: $0, startedAt: clock.now) }))
    }

    public var watchdogPingPeriod: Duration? { state.withLock { $0.gate?.pingPeriod } }

    /// The longest the fetch loop may sleep and still keep the watchdog fed.
    public var longestIdle: Duration? { state.withLock { $0.gate?.longestIdle } }

    public func cycleCompleted() {
        let now = clock.now
        state.withLock { $0.gate?.cycleCompleted(at: now) }
    }

    public func pingWatchdogIfHealthy() {
        let now = clock.now
        if state.withLock({ $0.gate?.mayPing(at: now) ?? false }) { notifier.watchdog() }
    }

    /// Renders the status only when one of `kind` could be sent now, and someone listens: a
    /// trade on the hot path pays for a lock, not for the text, and so does a daemon run by hand.
    public func reportStatus(kind: StatusKind, _ status: () -> DaemonStatus) {
        let now = clock.now
        guard state.withLock({ $0.throttle.mayAdmit(kind, at: now) }), notifier.isActive else { return }
        reportStatus(status())
    }

    public func reportStatus(_ status: DaemonStatus) {
        let now = clock.now
        if state.withLock({ $0.throttle.admit(status, at: now) }) { notifier.status(status.text) }
    }
}
