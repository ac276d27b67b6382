/// The spans the daemon reports change over and serves history for.
public enum ChangeWindow: String, Sendable, Hashable, CaseIterable {
    case hour = "1h"
    case day = "24h"
    case week = "7d"

    public var minutes: Int64 {
        switch self {
        case .hour: 60
        case .day: 1440
        case .week: 10_080
        }
    }

    public var milliseconds: Int64 { minutes * 60_000 }

    /// How far before the window's start the reference price may be: a twentieth of the
    /// window (3 min, 72 min, 8 h 24 min). Older than that, the history has a gap there and
    /// the change is unknown rather than measured from a different moment.
    public var referenceTolerance: Int64 { minutes / 20 }
}
