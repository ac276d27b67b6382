/// Decides whether the service manager's watchdog may be fed: only while the fetch loop keeps
/// completing cycles. A hung loop stops the pings and systemd restarts the daemon; a network
/// outage still completes (failing) cycles, so it does not.
public struct WatchdogGate<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let interval: Duration
    private var lastProgress: Instant

    /// Start-up counts as progress, so the first cycle has a full interval to finish.
    public init(interval: Duration, startedAt: Instant) {
        self.interval = interval
        self.lastProgress = startedAt
    }

    public mutating func cycleCompleted(at instant: Instant) {
        if instant > lastProgress { lastProgress = instant }
    }

    public func mayPing(at now: Instant) -> Bool {
        lastProgress.duration(to: now) <= interval
    }

    /// Ping at half the interval, as sd_watchdog_enabled(3) recommends.
    public var pingPeriod: Duration { interval / 2 }

    /// The longest the fetch loop may sleep between cycles and still keep the watchdog fed.
    public var longestIdle: Duration { interval / 2 }
}
