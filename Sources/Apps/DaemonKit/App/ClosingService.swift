import ServiceLifecycle

/// Keeps something open until graceful shutdown, then closes it: the one place it is closed,
/// also when the group is cancelled after an error (the socket server, the metrics listener).
public struct ClosingService: Service {
    let close: @Sendable () async -> Void

    public init(close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
