import NIOConcurrencyHelpers
import NIOCore

/// The set of `watch` connections and the fan-out of new lines to them.
final class WatchHub: Sendable {
    private let watchers = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    private let closed = NIOLockedValueBox(false)

    /// Returns false once the hub is closed, so late watchers are not left dangling.
    func add(_ channel: any Channel) -> Bool {
        closed.withLockedValue { isClosed in
            guard !isClosed else { return false }
            watchers.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
            return true
        }
    }

    func remove(_ channel: any Channel) {
        _ = watchers.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var count: Int { watchers.withLockedValue { $0.count } }

    /// A watcher whose socket buffer and our queue are past the high-water mark is not reading:
    /// drop it rather than buffer without bound.
    func broadcast(_ line: String) {
        for channel in watchers.withLockedValue({ Array($0.values) }) {
            channel.eventLoop.execute {
                guard channel.isActive else { return }
                guard channel.isWritable else {
                    channel.close(promise: nil)
                    return
                }
                channel.writeAndFlush(channel.allocator.buffer(string: line), promise: nil)
            }
        }
    }

    /// Ends every stream; used at shutdown.
    func closeAll() async {
        closed.withLockedValue { $0 = true }
        let channels = watchers.withLockedValue { watchers in
            defer { watchers.removeAll() }
            return Array(watchers.values)
        }
        for channel in channels { try? await channel.close() }
    }
}
