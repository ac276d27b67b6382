import Synchronization

/// One pace for the calls this process makes to each venue, when no shared limits directory
/// (`FileHostPace`) is set: a daemon serving several currencies keeps the host's pace between
/// them, as instances on one host do through the directory. The same rule as the file's: at
/// most one request of a kind every `pace`; a wall clock stepped back allows the request.
public final class ProcessHostPace: HostPace {
    private struct Key: Hashable {
        let source: SourceName
        let kind: RequestKind
    }
    private let lastClaims = Mutex<[Key: Int64]>([:])

    public init() {}

    public func claim(_ source: SourceName, kind: RequestKind, pace: Duration, at wallTime: Timestamp) -> Bool {
        let now = wallTime.millisecondsSinceEpoch, key = Key(source: source, kind: kind)
        return lastClaims.withLock { claims in
            if let last = claims[key], last <= now, now - last < pace.wholeMilliseconds { return false }
            claims[key] = now
            return true
        }
    }
}
