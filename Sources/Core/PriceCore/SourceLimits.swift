/// What a venue allows, from its public documentation. The daemon never asks a source more
/// often than this, whatever else fails.
public struct SourceLimits: Sendable, Hashable {
    /// The shortest time between two calls.
    public var minimumInterval: Duration
    /// A cap on calls per rolling 24 h (a paid plan's quota), if the venue has one.
    public var dailyCalls: Int?
    /// The shortest time between two calls from every instance on this host together: the
    /// venue's published per-IP limit, with a margin. Instances for other currencies share it,
    /// while each keeps its own slower `pace`, so two or three rarely wait for each other.
    public var hostInterval: Duration

    public init(minimumInterval: Duration, dailyCalls: Int? = nil, hostInterval: Duration? = nil) {
        self.minimumInterval = minimumInterval
        self.dailyCalls = dailyCalls.map { max($0, 1) }
        self.hostInterval = min(hostInterval ?? minimumInterval, minimumInterval)
    }

    public static let day = Duration.seconds(86_400)

    /// The time between calls actually kept: the minimum interval, or the daily budget spread
    /// evenly over the day when that is slower, so the budget never runs dry by evening.
    public var pace: Duration {
        guard let dailyCalls else { return minimumInterval }
        return max(minimumInterval, Self.day / dailyCalls)
    }

    /// The host-wide time between calls: a daily quota belongs to the key, not the instance, so
    /// it is spread over the day across all of them.
    public var hostPace: Duration {
        guard let dailyCalls else { return hostInterval }
        return max(hostInterval, Self.day / dailyCalls)
    }
}

/// When a source was called: the last call always, and every call of the last 24 h for a
/// source with a daily budget (at most that many instants).
public struct CallLog<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public private(set) var last: Instant?
    private var recent: [Instant] = []

    public init() {}

    /// The log as it stood before a restart.
    public init(last: Instant?, recent: [Instant]) {
        self.last = last
        self.recent = recent.sorted()
    }

    /// Calls of the last 24 h, oldest first.
    public var recentCalls: [Instant] { recent }

    public func allows(_ limits: SourceLimits, at now: Instant) -> Bool {
        if let last, last.duration(to: now) < limits.pace { return false }
        if let daily = limits.dailyCalls, calls(inLastDayAt: now) >= daily { return false }
        return true
    }

    /// The earliest instant `allows` can turn true.
    public func nextAllowed(_ limits: SourceLimits, at now: Instant) -> Instant {
        var next = last.map { $0.advanced(by: limits.pace) } ?? now
        if let daily = limits.dailyCalls {
            let window = recent[firstInDay(at: now)...]
            if window.count >= daily { next = max(next, window[window.endIndex - daily].advanced(by: SourceLimits.day)) }
        }
        return max(next, now)
    }

    public func calls(inLastDayAt now: Instant) -> Int {
        recent.count - firstInDay(at: now)
    }

    /// The index of the first call less than a day old at `now`. Asked on every cycle with up
    /// to a day's budget of calls logged, so a binary search over the sorted log.
    private func firstInDay(at now: Instant) -> Int {
        var low = 0, high = recent.count
        while low < high {
            let middle = (low + high) / 2
            if recent[middle].duration(to: now) < SourceLimits.day { high = middle } else { low = middle + 1 }
        }
        return low
    }

    public mutating func record(at now: Instant, keepingDayFor limits: SourceLimits) {
        last = now
        guard limits.dailyCalls != nil else {
            recent.removeAll()
            return
        }
        recent.removeFirst(firstInDay(at: now))
        // Kept sorted even if an instant comes out of order.
        recent.insert(now, at: recent.lastIndex { $0 <= now }.map { $0 + 1 } ?? 0)
    }
}
