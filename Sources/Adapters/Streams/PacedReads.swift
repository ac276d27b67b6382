import NIOCore
import NIOPosix
import PriceCore
import Synchronization

/// The daemon's paced streams, read as someone needs them (`ReadCadence`). While anyone
/// watches, a busy stream is read once per publish interval, as watchers get a line per interval.
/// With nobody watching it is read once per `unwatchedInterval`, and whoever reads the price
/// (a request, a scrape, the freshness monitor) first takes what the connection holds when the
/// last read is more than one publish interval old. So the served price is never more than one
/// publish interval behind the wire, and a daemon nobody watches wakes once a second for its
/// stream instead of four times.
public final class PacedReads: StreamBacklog {
    public let unwatchedInterval: TimeAmount
    private let audience = Mutex<@Sendable () -> Bool>({ true })
    private let pacers = Mutex<[ObjectIdentifier: Registration]>([:])

    /// One connection's pacer, to be reached from any thread.
    struct Registration: Sendable {
        let loop: any EventLoop
        let pacer: NIOLoopBound<ReadPacer>
        let mark: ReadMark
    }

    /// Nil for a zero interval: every message is then read as it comes, with nothing to pace.
    public init?(interval: Duration) {
        guard interval > .zero else { return nil }
        unwatchedInterval = TimeAmount(ReadCadence.unwatched(publishInterval: interval))
    }

    public func attach(audience: @escaping @Sendable () -> Bool) {
        self.audience.withLock { $0 = audience }
    }

    var isWatched: Bool { audience.withLock { $0 }() }

    public func catchUp() { visit(watcherJoins: false) }

    public func watcherJoins() { visit(watcherJoins: true) }

    /// Runs on each pacer's loop: at once when called there, otherwise handed to the loop and
    /// waited for (the socket's front door answers on a thread of its own).
    /// Every request comes here: while nothing is behind, that is one lock and no allocation.
    private func visit(watcherJoins: Bool) {
        let due = pacers.withLock { $0.values.filter { watcherJoins || $0.mark.isBehind(at: $0.loop.now) } }
        for registration in due {
            let pacer = registration.pacer
            if registration.loop.inEventLoop {
                pacer.value.catchUp(watcherJoins: watcherJoins)
            } else if MultiThreadedEventLoopGroup.currentEventLoop != nil {
                // Another loop must not block on this one: the read follows as soon as it can.
                registration.loop.execute { pacer.value.catchUp(watcherJoins: watcherJoins) }
            } else {
                // Fails only when the loop is shutting down, and the connection goes with it.
                try? registration.loop.submit { pacer.value.catchUp(watcherJoins: watcherJoins) }.wait()
            }
        }
    }

    func register(_ pacer: ReadPacer, on loop: any EventLoop, mark: ReadMark) {
        let registration = Registration(loop: loop, pacer: NIOLoopBound(pacer, eventLoop: loop), mark: mark)
        pacers.withLock { $0[ObjectIdentifier(pacer)] = registration }
    }

    func unregister(_ pacer: ReadPacer) {
        _ = pacers.withLock { $0.removeValue(forKey: ObjectIdentifier(pacer)) }
    }
}

/// Since when a pacer's unread messages may be more than one publish interval old, readable
/// from any thread: set when a read is put off at the unwatched cadence, never while the next
/// read is due within the interval or the socket is armed to read the moment bytes come.
final class ReadMark: Sendable {
    private static let never = UInt64.max
    private let behindAfter = Atomic<UInt64>(ReadMark.never)

    func behind(after deadline: NIODeadline) { behindAfter.store(deadline.uptimeNanoseconds, ordering: .relaxed) }
    func neverBehind() { behindAfter.store(Self.never, ordering: .relaxed) }
    func isBehind(at now: NIODeadline) -> Bool { now.uptimeNanoseconds > behindAfter.load(ordering: .relaxed) }
}
