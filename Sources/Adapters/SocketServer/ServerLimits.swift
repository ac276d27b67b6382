/// Bounds that keep one misbehaving client from hurting the daemon or other clients.
public struct ServerLimits: Sendable {
    public var maximumConnections: Int
    /// A client must send a complete request line within this time.
    public var requestTimeout: Duration
    /// Bytes queued for a `watch` client before it counts as not reading and is dropped.
    public var watchBacklogLimit: Int

    public init(maximumConnections: Int = 1024, requestTimeout: Duration = .seconds(5), watchBacklogLimit: Int = 64 * 1024) {
        self.maximumConnections = maximumConnections
        self.requestTimeout = requestTimeout
        self.watchBacklogLimit = watchBacklogLimit
    }
}

/// What the server needs from the daemon, answered on an event loop: keep it cheap.
public protocol StatusProvider: Sendable {
    func currentStatus() -> StatusLine
    /// The `sources` reply: one JSON line.
    func sourcesReport() -> String
}

/// A status rendered for the wire, plus the plain price for the `price` request.
public struct StatusLine: Sendable {
    public let json: String
    public let price: String?

    public init(json: String, price: String?) {
        self.json = json
        self.price = price
    }
}
