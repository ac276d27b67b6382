/// One venue the stream may use: its connection, and the policy its link keeps.
public struct StreamVenue: Sendable {
    public let name: SourceName
    public let connection: any PriceStream
    public let policy: StreamPolicy

    public init(name: SourceName, connection: any PriceStream, policy: StreamPolicy = StreamPolicy()) {
        self.name = name
        self.connection = connection
        self.policy = policy
    }
}
