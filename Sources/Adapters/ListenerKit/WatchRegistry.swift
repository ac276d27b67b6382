import Glibc
import NIOCore
import PosixFiles
import Synchronization

/// The `watch` connections: who they are, grouped by event loop for the fan-out, until the
/// server closes. Kept apart from the fan-out so that joining and leaving never wait on a
/// broadcast, and a broadcast reads one grouped list.
final class WatchRegistry: Sendable {
    private let watchers = Mutex(Watchers())
    private let closed = Mutex(false)
    private let limits: ServerLimits
    private let counters: WatchCounters

    init(limits: ServerLimits, counters: WatchCounters) {
        self.limits = limits
        self.counters = counters
    }

    var isClosed: Bool { closed.withLock { $0 } }
    var count: Int { watchers.withLock { $0.streams.count } }

    /// The watchers by event loop, and how many there are.
    func grouped() -> (byLoop: [[WatchStream]], count: Int) {
        watchers.withLock { ($0.grouped(), $0.streams.count) }
    }

    /// Registers a watcher and hands its stream to `start` (its first line), both while the
    /// registry is known to be open. Returns false once it is closed, so late watchers are not
    /// left dangling. Called on the channel's event loop.
    func add(_ channel: any Channel, topic: WatchTopic, start: (WatchStream) -> Void) -> Bool {
        closed.withLock { isClosed in
            guard !isClosed else { return false }
            if let size = limits.watchSendBuffer {
                try? channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
            }
            // Our own descriptor for the socket, for `WatchStream.sendDirectly` (see there).
            let descriptor = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
                DuplicatedDescriptor(of: $0)
            }
            let stream = WatchStream(channel, topic: topic, descriptor: descriptor ?? nil)
            let count = watchers.withLock { watchers in
                watchers.streams[ObjectIdentifier(channel)] = stream
                watchers.byLoop = nil
                return watchers.streams.count
            }
            counters.subscribers.record(count)
            start(stream)
            return true
        }
    }

    /// Called on the channel's event loop when it closes; returns its stream if it was one.
    func remove(_ channel: any Channel) -> WatchStream? {
        let (stream, count) = watchers.withLock { watchers in
            let stream = watchers.streams.removeValue(forKey: ObjectIdentifier(channel))
            if stream != nil { watchers.byLoop = nil }
            return (stream, watchers.streams.count)
        }
        guard let stream else { return nil }
        stream.closeDescriptor()
        counters.subscribers.record(count)
        return stream
    }

    /// Closes the registry to newcomers and hands over every stream; used at shutdown.
    func closeAll() -> [WatchStream] {
        closed.withLock { $0 = true }
        return watchers.withLock { watchers in
            defer { watchers = Watchers() }
            return Array(watchers.streams.values)
        }
    }
}

/// The watchers, and the same grouped by event loop for the broadcast, kept until one comes or goes.
private struct Watchers {
    var streams: [ObjectIdentifier: WatchStream] = [:]
    var byLoop: [[WatchStream]]?

    mutating func grouped() -> [[WatchStream]] {
        if let byLoop { return byLoop }
        // In address order, not the dictionary's: a broadcast's first touch of each stream is a
        // cache miss, and memory walked upwards is memory the processor fetches ahead.
        let grouped = Dictionary(grouping: streams.values) { ObjectIdentifier($0.channel.eventLoop) }.values.map { group in
            group.sorted { ObjectIdentifier($0) < ObjectIdentifier($1) }
        }
        byLoop = grouped
        return grouped
    }
}
