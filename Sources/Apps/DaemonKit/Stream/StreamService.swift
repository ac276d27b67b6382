import CoreMetrics
import Logging
import PriceCore
import ServiceLifecycle
import Synchronization
import WireProtocol

/// Keeps a stream connected: every message goes through the intake, on the loop that read it;
/// stalls and drops hand over to REST polling, which the fetch loop resumes on its next tick;
/// a refused venue hands the stream to the next one in the lineup. Logs one line per change of
/// the stream's state.
public struct StreamService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    public let lineup: StreamLineup<C.Instant>
    public let intake: PriceIntake<C>
    public let ledger: SourceLedger<C.Instant>
    /// Keeps a refusal in sources.json, so it outlives a restart.
    public let restraints: RestraintKeeper
    public let clock: C
    public let jitter: any JitterSource
    public let logger: Logger
    /// How late the watch on a live link may look (a stall noticed that much later): a clock
    /// that shares wakeups ends its sleeps with the stream's reads.
    public var timerTolerance: Duration?
    /// Where a connection's task and the watch on its link run: the daemon's event loop, which
    /// reads the stream and fires the watch's timer. An unstructured task does not inherit the
    /// service's preference, and without one each of the watch's wakeups would hop to a worker
    /// thread of the global executor and back.
    public var executor: (any TaskExecutor)?

    public init(lineup: StreamLineup<C.Instant>, intake: PriceIntake<C>, ledger: SourceLedger<C.Instant>, restraints: RestraintKeeper,
                clock: C, jitter: any JitterSource, logger: Logger) {
        self.lineup = lineup
        self.intake = intake
        self.ledger = ledger
        self.restraints = restraints
        self.clock = clock
        self.jitter = jitter
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await keepConnected() }
    }

    private func keepConnected() async {
        let announcements = StreamAnnouncements()
        while !Task.isCancelled {
            let candidate = lineup.choose(at: clock.now)
            let state = candidate.state, venue = state.venue.rawValue
            let restUntil: C.Instant? = state.update { link in
                switch link.phase {
                case .waiting(let until), .refused(let until): until
                case .connecting, .live: nil
                }
            }
            if let wait = restUntil, clock.now < wait {
                do { try await clock.sleep(until: wait, tolerance: nil) } catch { return }
            }
            if state.update({ $0.shouldConnect(at: clock.now) }) { state.update { $0.connecting(at: clock.now) } }
            let logger = self.logger
            let ending = await connect(candidate, onLive: {
                guard let line = announcements.live(venue) else { return }
                logger.info("\(line)", metadata: ["source": "\(venue)"])
            })
            if Task.isCancelled { return }
            state.ended(ending.description)
            state.update { $0.ended(ending, at: clock.now, jitter: jitter.unitInterval()) }
            lineup.standbyBell.ring()
            if case .refused = ending {
                let board = intake.board
                if case .refused(let until) = state.update({ $0.phase }) { ledger.refuseStream(state.venue, until: until) }
                await restraints.offer(from: ledger, now: clock.now, wallTime: board.wallClock.now())
                let next = lineup.choose(at: clock.now).state.venue.rawValue
                let instead = next == venue ? "polling REST instead" : "streaming from \(next) if it can, polling REST meanwhile"
                if announcements.refused(venue) {
                    logger.warning("\(venue) refused the stream (declined upgrade, as from a restricted location); \(instead), and not asking \(venue) for its stream again for \(state.update { $0.policy.refusalCooldown }.humanReadable)",
                                   metadata: ["source": "\(venue)"])
                }
            } else if announcements.down(venue) {
                logger.warning("\(venue) stream is down (\(ending.description)); polling REST until it is back", metadata: ["source": "\(venue)"])
            }
        }
    }

    /// Runs a venue's connection until it ends, and beside it a watch on the link for stalls, the
    /// connect timeout and rotation. A rotation (the connection's age, or the venue's notice that
    /// it will close) opens a replacement beside the live connection, and the old one is closed
    /// only when the replacement carries its first message: no trade is missed and no REST call
    /// is spent. Every task here is unstructured and cancelled, not awaited: a cancelled
    /// connection closes its socket at once, but its task may still be finishing its close.
    /// Specialised for the daemon's clock, and with it every read's path (the intake, the board,
    /// the publisher): reached only through `any Service`, it would otherwise stay generic and
    /// pay for a metadata lookup at each use of the clock's types, about a tenth of a read.
    @_specialize(where C == DaemonClock)
    private func connect(_ candidate: StreamLineup<C.Instant>.Candidate,
                         onLive: @escaping @Sendable () -> Void) async -> StreamLink<C.Instant>.Ending {
        let state = candidate.state
        let roles = ConnectionRoles()
        let (events, sink) = AsyncStream.makeStream(of: LinkEvent.self)
        var connections: [Int: Task<Void, Never>] = [:]
        let open: (Int) -> Task<Void, Never> = { [clock, executor] id in
            Task(executorPreference: executor) {
                let ending: StreamLink<C.Instant>.Ending = await candidate.connection.run(
                    opened: {
                        guard roles.isCurrent(id) else { return }
                        state.update { $0.opened(at: clock.now) }
                        state.opened()
                    },
                    received: { events in received(events, from: id, on: state, roles: roles, sink: sink, onLive: onLive) })
                sink.yield(.ended(id, ending))
            }
        }
        connections[0] = open(0)
        let watcher = Task(executorPreference: executor) { [clock, timerTolerance] in
            while !Task.isCancelled {
                let now = clock.now
                let (replace, gaveUp, stalled, next) = state.update { link in
                    let replace = link.rotationDue(at: now)
                    if replace { link.replacing(at: now) }
                    let gaveUp = link.replacementTimedOut(at: now)
                    if gaveUp { link.replacementFailed(at: now) }
                    let stalled: StreamLink<C.Instant>.Ending? = if link.hasStalled(at: now) {
                        if case .connecting = link.phase { .failed("no answer within \(link.policy.connectTimeout.humanReadable) of connecting") } else { .stalled(after: link.policy.stallAfter) }
                    } else { nil }
                    // Live with no replacement in flight, the deadlines only move later (a message
                    // pushes the stall back), so the watch sleeps until the next one: at 10 trades a
                    // second it wakes once per stall limit, not every second. Otherwise (connecting,
                    // replacing) a change it does not see may bring one closer, so it looks every second.
                    let settled = link.isLive && link.replacementSince == nil
                    return (replace, gaveUp, stalled, settled ? link.nextDeadline() : min(link.nextDeadline() ?? now.advanced(by: .seconds(1)), now.advanced(by: .seconds(1))))
                }
                if replace { sink.yield(.replace) }
                if gaveUp { sink.yield(.replacementGaveUp) }
                if let stalled {
                    sink.yield(.stalled(stalled))
                    return
                }
                do { try await clock.sleep(until: next ?? now.advanced(by: .seconds(1)), tolerance: timerTolerance) } catch { return }
            }
        }
        let ending: StreamLink<C.Instant>.Ending? = await withTaskCancellationHandler {
            var nextID = 1
            for await event in events {
                switch event {
                case .replace:
                    roles.replacement(nextID)
                    connections[nextID] = open(nextID)
                    logger.debug("opening a replacement \(state.venue.rawValue) stream connection before the venue closes this one")
                    nextID += 1
                case .retire(let old):
                    connections.removeValue(forKey: old)?.cancel()
                case .replacementGaveUp:
                    if let replacement = roles.dropReplacement() { connections.removeValue(forKey: replacement)?.cancel() }
                case .stalled(let ending):
                    return ending
                case .ended(let id, let ending):
                    connections[id] = nil
                    switch roles.ended(id) {
                    case .retired: continue
                    case .replacement: state.update { $0.replacementFailed(at: clock.now) }
                    case .replacementPromoted: state.update { $0.rotating(at: clock.now) }
                    case .current: return ending
                    }
                }
            }
            return nil
        } onCancel: {
            sink.finish()
        }
        for connection in connections.values { connection.cancel() }
        watcher.cancel()
        sink.finish()
        return ending ?? .closed("cancelled")
    }

    /// One read's messages from connection `id`, on the loop that read them.
    private func received(_ events: [StreamEvent], from id: Int, on state: StreamState<C.Instant>, roles: ConnectionRoles,
                          sink: AsyncStream<LinkEvent>.Continuation, onLive: () -> Void) {
        let now = clock.now
        switch roles.receivedFrom(id) {
        case .retired: return
        case .promoted(let old):
            state.update { $0.replaced(at: now) }
            state.opened()
            sink.yield(.retire(old))
        case .current: break
        }
        let reception = state.update { link in
            var reception = link.received(events, at: now)
            // A notice while a replacement is already in flight asks for nothing more.
            reception.closingSoon = reception.closingSoon && link.replacementSince == nil
            if reception.closingSoon { link.replacing(at: now) }
            return reception
        }
        if reception.becameLive { state.opened() }
        if reception.closingSoon { sink.yield(.replace) }
        onLive()
        intake.accept(events, from: state.venue) { event in state.order.withLock { $0.admits(event) } }
    }

    /// What the connections and the watch on the link tell the loop that owns them.
    private enum LinkEvent: Sendable {
        case replace
        case retire(Int)
        case replacementGaveUp
        case stalled(StreamLink<C.Instant>.Ending)
        case ended(Int, StreamLink<C.Instant>.Ending)
    }
}

/// Which of a venue's connections is the one in use, and which (during a rotation) replaces it.
private final class ConnectionRoles: Sendable {
    enum Role { case current, promoted(old: Int), retired }
    enum Ending { case current, replacement, replacementPromoted, retired }

    private let ids = Mutex((current: 0, replacement: Int?.none))

    func isCurrent(_ id: Int) -> Bool { ids.withLock { $0.current == id } }
    func replacement(_ id: Int) { ids.withLock { $0.replacement = id } }
    func dropReplacement() -> Int? { ids.withLock { ids in defer { ids.replacement = nil }; return ids.replacement } }

    /// A message from `id`: the replacement's first takes over from the current connection.
    func receivedFrom(_ id: Int) -> Role {
        ids.withLock { ids in
            if ids.current == id { return .current }
            guard ids.replacement == id else { return .retired }
            defer { ids = (current: id, replacement: nil) }
            return .promoted(old: ids.current)
        }
    }

    func ended(_ id: Int) -> Ending {
        ids.withLock { ids in
            if ids.current == id {
                guard let replacement = ids.replacement else { return .current }
                ids = (current: replacement, replacement: nil)
                return .replacementPromoted
            }
            guard ids.replacement == id else { return .retired }
            ids.replacement = nil
            return .replacement
        }
    }
}

/// What the stream has said in the log: one line when a venue's stream goes down or is
/// refused, one when a stream is live again. A venue's refusal is said once, until it streams.
private final class StreamAnnouncements: Sendable {
    private let said = Mutex((live: false, lastLive: String?.none, down: Set<String>(), refused: Set<String>()))

    /// The line to log now that `venue` carries trades, if any.
    func live(_ venue: String) -> String? {
        said.withLock { said in
            guard !said.live else { return nil }
            let back = said.down.contains(venue) && said.lastLive == venue
            said = (live: true, lastLive: venue, down: [], refused: said.refused.subtracting([venue]))
            return back ? "\(venue) stream is back; polling rests" : "streaming trades from \(venue); polling rests"
        }
    }

    /// Whether to warn that `venue`'s stream went down.
    func down(_ venue: String) -> Bool {
        said.withLock { said in
            said.live = false
            return said.down.insert(venue).inserted
        }
    }

    /// Whether to warn that `venue` refused the stream.
    func refused(_ venue: String) -> Bool {
        said.withLock { said in
            said.live = false
            return said.refused.insert(venue).inserted
        }
    }
}

extension StreamLink.Ending: CustomStringConvertible {
    public var description: String {
        switch self {
        case .closed(let reason), .failed(let reason): reason
        case .refused: "upgrade declined"
        case .stalled(let after): "no message for \(after.humanReadable)"
        }
    }
}
