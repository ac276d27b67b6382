/// What must outlive a restart so that a restart loop never asks a venue sooner than it
/// allowed: the cool-downs venues asked for, calls against daily budgets, and a refused stream.
public struct SourceRestraint: Sendable, Hashable {
    public var restingUntil: Timestamp?
    public var lastCall: Timestamp?
    /// The venue declined to upgrade to its stream (as from a restricted location); not asked again before this.
    public var streamRefusedUntil: Timestamp?
    /// Calls of the last 24 h per hour, keyed by the hour's end; counted as made at that end,
    /// which frees them no earlier than the exact instants would.
    public var callsByHourEnd: [Int64: Int]

    public init(restingUntil: Timestamp? = nil, lastCall: Timestamp? = nil, callsByHourEnd: [Int64: Int] = [:],
                streamRefusedUntil: Timestamp? = nil) {
        self.restingUntil = restingUntil
        self.lastCall = lastCall
        self.callsByHourEnd = callsByHourEnd
        self.streamRefusedUntil = streamRefusedUntil
    }

    public var isEmpty: Bool { restingUntil == nil && lastCall == nil && callsByHourEnd.isEmpty && streamRefusedUntil == nil }

    static let hour: Int64 = 3_600_000

    static func hourEnd(of timestamp: Timestamp) -> Int64 {
        (timestamp.millisecondsSinceEpoch.floorDivided(by: hour).quotient + 1) * hour
    }
}

extension SourceLedger {
    /// The longest a restored cool-down may last, so a wall clock that was wrong when it was
    /// written cannot silence a source for days.
    public static var longestRestoredRest: Duration { .seconds(3600) }

    /// Cool-downs still running and budgeted calls, stamped with wall time for the state file.
    public func restraints(at now: Instant, wallTime: Timestamp) -> [SourceName: SourceRestraint] {
        func wall(_ instant: Instant) -> Timestamp { wallTime.adding(milliseconds: now.duration(to: instant).wholeMilliseconds) }
        return state.withLock { state in
            var result: [SourceName: SourceRestraint] = [:]
            let streaming = state.streamRefusals.keys.filter { !state.order.contains($0) }.sorted { $0.rawValue < $1.rawValue }
            for source in state.order + streaming {
                var restraint = SourceRestraint()
                if let until = state.health.coolingDownUntil(source), until > now { restraint.restingUntil = wall(until) }
                if let until = state.streamRefusals[source], until > now { restraint.streamRefusedUntil = wall(until) }
                if state.limits[source]?.dailyCalls != nil, let log = state.calls[source] {
                    restraint.lastCall = log.last.map(wall)
                    for call in log.recentCalls where call.duration(to: now) < SourceLimits.day {
                        restraint.callsByHourEnd[SourceRestraint.hourEnd(of: wall(call)), default: 0] += 1
                    }
                }
                if !restraint.isEmpty { result[source] = restraint }
            }
            return result
        }
    }

    /// Takes back what a previous run left; returns the sources still resting.
    @discardableResult
    func restore(_ restraints: [SourceName: SourceRestraint], at now: Instant, wallTime: Timestamp) -> [SourceName] {
        // A time in the future (a clock stepped back) counts as now: the safe side for a call.
        func instant(_ timestamp: Timestamp) -> Instant {
            now.advanced(by: .milliseconds(min(0, timestamp.milliseconds(since: wallTime))))
        }
        return state.withLock { state in
            var resting: [SourceName] = []
            for (source, restraint) in restraints {
                if let until = restraint.restingUntil, until > wallTime {
                    let remaining = min(Duration.milliseconds(until.milliseconds(since: wallTime)), Self.longestRestoredRest)
                    state.health.rest(source, until: now.advanced(by: remaining))
                    state.restraintVersion += 1
                    resting.append(source)
                }
                if let until = restraint.streamRefusedUntil, until > wallTime {
                    let remaining = min(Duration.milliseconds(until.milliseconds(since: wallTime)), Self.longestRestoredRest)
                    state.streamRefusals[source] = now.advanced(by: remaining)
                    state.restraintVersion += 1
                }
                let last = restraint.lastCall.map(instant)
                var recent: [Instant] = []
                for (hourEnd, count) in restraint.callsByHourEnd where count > 0 {
                    let end = Timestamp(millisecondsSinceEpoch: hourEnd)
                    guard wallTime.milliseconds(since: end) < SourceLimits.day.wholeMilliseconds else { continue }
                    let at = end > wallTime ? now : instant(end)
                    recent += Array(repeating: at, count: min(count, 1_000_000))
                }
                if last != nil || !recent.isEmpty { state.calls[source] = CallLog(last: last, recent: recent) }
            }
            return resting.sorted { $0.rawValue < $1.rawValue }
        }
    }
}
