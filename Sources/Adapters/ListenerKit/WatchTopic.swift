/// Which currency's lines a watcher follows (`watch`, `watch EUR`, `watch *`): the primary
/// currency's, one other's, or every currency's.
public enum WatchTopic: Sendable, Hashable {
    case primary
    case currency(String)
    case every

    /// Whether a line published for `currency` (nil: the primary currency) goes to this watcher.
    @inline(__always)
    public func follows(_ currency: String?) -> Bool {
        switch self {
        case .every: true
        case .primary: currency == nil
        case .currency(let code): currency == code
        }
    }
}
