/// Decides which STATUS= lines reach systemd: only changed ones, a change of kind at once, and
/// otherwise (an age ticking up while stale) at most one per `minimumGap`.
public struct StatusThrottle<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let minimumGap: Duration
    private var last: DaemonStatus?
    private var lastSentAt: Instant?

    public init(minimumGap: Duration = .milliseconds(950)) {
        self.minimumGap = minimumGap
    }

    /// Whether a status of `kind` could be sent now, asked before one is rendered.
    public func mayAdmit(_ kind: StatusKind, at now: Instant) -> Bool {
        guard kind == last?.kind, let lastSentAt else { return true }
        return lastSentAt.duration(to: now) >= minimumGap
    }

    /// True when `status` should be sent now; it then counts as sent.
    public mutating func admit(_ status: DaemonStatus, at now: Instant) -> Bool {
        guard status != last else { return false }
        if status.kind == last?.kind, let lastSentAt, lastSentAt.duration(to: now) < minimumGap { return false }
        last = status
        lastSentAt = now
        return true
    }
}
