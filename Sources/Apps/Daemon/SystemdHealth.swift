import DaemonKit
import NIOPosix
import PriceCore
import Systemd

extension SystemdNotifier: HealthNotifier {}

/// Blocking file IO on NIO's thread pool, off the event loop.
struct ThreadPoolWork: BlockingWork {
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
