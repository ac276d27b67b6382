/// Bounds that keep one misbehaving client from hurting the daemon or other clients.
public struct ServerLimits: Sendable {
    public var maximumConnections: Int
    /// Connections one local user (UID) may hold at once (`BTCPRICED_USER_CONNECTIONS`); never
    /// more than seven eighths of `maximumConnections`.
    public var connectionsPerUser: Int
    /// `watch` streams one UID may hold (`BTCPRICED_USER_WATCHERS`); fewer than
    /// `connectionsPerUser`, so its own prompts always find room.
    public var watchersPerUser: Int
    /// A client must send a complete request line within this time.
    public var requestTimeout: Duration
    /// Bytes queued in the daemon for one `watch` client before it counts as not reading and is dropped.
    public var watchBacklogLimit: Int
    /// A `watch` client whose stream has not drained for this long is dropped (`BTCPRICED_WATCH_STALL`).
    public var watchStall: Duration
    /// Bytes queued in the daemon for all `watch` clients together; past it, the ones not reading go.
    public var watchQueueLimit: Int
    /// SO_SNDBUF for `watch` connections (nil keeps the kernel's default of about 208 KiB), so
    /// the kernel holds a few lines for a client that stops reading, not ten minutes of them.
    public var watchSendBuffer: Int?

    public static let defaultConnectionsPerUser = 128
    public static let defaultWatchersPerUser = 64

    public init(maximumConnections: Int = 1024, connectionsPerUser: Int = Self.defaultConnectionsPerUser,
                watchersPerUser: Int = Self.defaultWatchersPerUser, requestTimeout: Duration = .seconds(5), watchBacklogLimit: Int = 64 * 1024,
                watchStall: Duration = .seconds(30), watchQueueLimit: Int = 4 * 1024 * 1024, watchSendBuffer: Int? = 8 * 1024) {
        self.maximumConnections = maximumConnections
        self.connectionsPerUser = connectionsPerUser
        self.watchersPerUser = watchersPerUser
        self.requestTimeout = requestTimeout
        self.watchBacklogLimit = watchBacklogLimit
        self.watchStall = watchStall
        self.watchQueueLimit = watchQueueLimit
        self.watchSendBuffer = watchSendBuffer
    }
}
