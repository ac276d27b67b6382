import Foundation
import PriceCore

/// Blocking work on a thread of its own, as the daemon runs it on a pool: a gated store may block.
public struct ThreadWork: BlockingWork {
    public init() {}

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
