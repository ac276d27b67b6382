import NIOPosix
import PriceCore

/// Blocking file IO on NIO's thread pool, off the event loop.
public struct ThreadPoolWork: BlockingWork {
    public init() {}

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
