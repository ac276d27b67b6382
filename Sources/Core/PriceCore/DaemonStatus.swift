/// What kind of news a STATUS= line carries; the throttle lets a change of kind through at once.
public enum StatusKind: String, Sendable, Hashable {
    /// A quote younger than the stale limit.
    case fresh
    /// No quote yet, and nothing has failed yet (start-up).
    case waiting
    /// No quote yet, and the sources are failing.
    case failing
    /// A quote older than the stale limit, or of unknown age.
    case stale
}

/// One STATUS= line and its kind.
public struct DaemonStatus: Sendable, Hashable {
    public let kind: StatusKind
    public let text: String

    public init(kind: StatusKind, text: String) {
        self.kind = kind
        self.text = text
    }
}
