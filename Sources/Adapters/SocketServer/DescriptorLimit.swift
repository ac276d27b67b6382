#if canImport(Glibc)
import ListenerKit
import Glibc
#endif

/// File descriptors: the soft limit is raised to the hard one at start, as systemd recommends
/// for daemons that need many (systemd.exec(5), LimitNOFILE=), and the socket's connection cap
/// leaves a reserve below it, so clients run into `busy` long before the store, the HTTP
/// client or the journal run out of descriptors.
public enum DescriptorLimit {
    /// Descriptors kept for everything but admitted clients: the store, HTTP connections to
    /// five venues, the journal, the event loop, listeners, and clients being told `busy`
    /// (each holds one for up to a second).
    public static let reserve = 160

    /// Raises the soft limit as far as allowed; returns the limit now in force.
    public static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Protocol 1's cap of 1024, or less when the descriptor limit is lower.
    public static func connectionCap(descriptorLimit: Int, protocolCap: Int = 1024) -> Int {
        max(8, min(protocolCap, descriptorLimit - reserve))
    }
}

extension ServerLimits {
    /// The limits for this process: the soft descriptor limit raised to the hard one, and the
    /// connection cap derived from it. `notice` tells the operator when the cap is below
    /// protocol 1's 1024, and why.
    public static func raisingDescriptorLimit(connectionsPerUser: Int, watchersPerUser: Int, watchStall: Duration)
        -> (limits: ServerLimits, notice: String?) {
        let descriptors = DescriptorLimit.raiseSoftLimit()
        let limits = ServerLimits(maximumConnections: DescriptorLimit.connectionCap(descriptorLimit: descriptors),
                                  connectionsPerUser: connectionsPerUser, watchersPerUser: watchersPerUser, watchStall: watchStall)
        guard limits.maximumConnections < ServerLimits().maximumConnections else { return (limits, nil) }
        return (limits, "only \(descriptors) file descriptors allowed (LimitNOFILE=); serving at most \(limits.maximumConnections) clients at once")
    }
}
