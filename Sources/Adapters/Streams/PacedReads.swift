import NIOCore
import NIOPosix
import PriceCore
import Synchronization

/// The daemon's paced streams, read as someone needs them (`ReadCadence`). While anyone
/// watches, a busy stream is read once per publish interval, as watchers get a line per interval.
/// With nobody watching it is read once per `unwatchedInterval`, and whoever reads the price
/// (a request, a scrape) asks the stream's loop to read what the connection holds when the last
/// read is more than one publish interval old, without waiting for it: the reply serves what
/// the board holds, and the waiting trade is on the board a moment later. No thread blocks on
/// a stream, and a daemon nobody watches wakes once a second for its stream instead of four times.
public final class PacedReads: Sendable {
    /// The longest a message waits unread: the unwatched interval.
    public let longestWait: Duration
    public var unwatchedInterval: TimeAmount { TimeAmount(longestWait) }
    /// Who watches, as the listeners count them, one audience per currency served: loaded at
    /// each read, with no lock.
    let audiences: [WatchAudience]
    private let pacers = Mutex<[ObjectIdentifier: Registration]>([:])

    /// One connection's pacer, to be reached from any thread.
    struct Registration: Sendable {
        let loop: any EventLoop
        let pacer: NIOLoopBound<ReadPacer>
        let mark: ReadMark
    }

    /// Nil for a zero interval: every message is then read as it comes, with nothing to pace.
    /// `audience` is the listeners' count of watchers; `others`, those of the other currencies
    /// the streams carry.
    public init?(interval: Duration, audience: WatchAudience, others: [WatchAudience] = []) {
        guard interval > .zero else { return nil }
        longestWait = ReadCadence.unwatched(publishInterval: interval)
        audiences = [audience] + others
    }

    /// Whether anyone watches any currency the streams carry.
    var isWatched: Bool { audiences.contains(where: \.isWatched) }

    /// Asks each stream's loop to read what waits, if it may be more than one publish interval
    /// old, and returns at once: the reply serves what the board holds now, and the trade that
    /// waited reaches the board (and the watchers) on the loop right after. No thread ever waits
    /// for a stream's loop; the freshness judgement allows for the read lag. Any thread.
    public func catchUp() { visit(watcherJoins: false) }

    /// A watcher is about to get its first line: catch up, and read at the publish interval
    /// from now on, as long as someone watches.
    public func watcherJoins() { visit(watcherJoins: true) }

    /// Runs on each pacer's loop: at once when called there, otherwise handed to the loop.
    /// Every request comes here: while nothing is behind, that is one lock and no allocation.
    private func visit(watcherJoins: Bool) {
        let due = pacers.withLock { $0.values.filter { watcherJoins || $0.mark.isBehind(at: $0.loop.now) } }
        for registration in due {
            let pacer = registration.pacer
            if registration.loop.inEventLoop {
                pacer.value.catchUp(watcherJoins: watcherJoins)
            } else {
                // Dropped when the loop is shutting down, and the connection goes with it.
                registration.loop.execute { pacer.value.catchUp(watcherJoins: watcherJoins) }
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
