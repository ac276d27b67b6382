import CoreMetrics
import Logging
import PriceCore
import ServiceLifecycle
import Synchronization
import WireProtocol

/// The daemon's stream: the venues BTCPRICED_STREAM allows, in the chain's order, each with
/// its link, and the one in use. It is the only writer of the links. It tells a link what
/// happened and does what the link answers: it opens and closes connections, rests, and hands
/// the quote over to REST (ringing the fetch loop's bell) when the stream stalls, drops or is
/// refused; a refused venue hands the stream to the next one in the lineup. Each connection,
/// and the watch on its link, runs as a child of one task group, so a connection never
/// outlives the supervision that opened it. Every message goes through the intake on the
/// loop that read it. Logs one line per change of the stream's state.
public final class StreamSupervisor<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private let links: [VenueLink<C.Instant>]
    private let inUse = Atomic<Int>(0)
    /// Rung when the stream stops carrying quotes before the fetch loop's rest ends: a
    /// connection ended, or a reload shortened the silence limit.
    public let standbyBell = StandbyBell()
    private let clock: C
    private let jitter: any JitterSource
    private let logger: Logger
    /// How late the watch on a live link may look (a stall noticed that much later): a clock
    /// that shares wakeups ends its sleeps with the stream's reads.
    private let timerTolerance: Duration?
    /// Where the connections and the watch run: the daemon's event loop, which reads the
    /// stream and fires the watch's timer. Children inherit it, so no wakeup hops to a worker
    /// thread of the global executor and back.
    private let executor: (any TaskExecutor)?

    /// nil when no venue in the chain can stream.
    public init?(venues: [StreamVenue], clock: C, jitter: any JitterSource = SystemJitter(), logger: Logger, timerTolerance: Duration? = nil,
                 executor: (any TaskExecutor)? = nil, metrics: any MetricsFactory = MetricsSystem.factory) {
        guard !venues.isEmpty else { return nil }
        links = venues.map { VenueLink($0, now: clock.now, metrics: metrics) }
        self.clock = clock
        self.jitter = jitter
        self.logger = logger
        self.timerTolerance = timerTolerance
        self.executor = executor
    }

    public var venues: [SourceName] { links.map(\.venue) }
    /// The venue in use: the one streaming, or the next to try.
    public var current: SourceName { currentLink.venue }
    private var currentLink: VenueLink<C.Instant> { links[inUse.load(ordering: .relaxed)] }

    /// A copy of `venue`'s link, to read.
    public func link(of venue: SourceName) -> StreamLink<C.Instant>? { links.first { $0.venue == venue }?.link }

    /// Whether the stream in use carries the quotes, and until when it surely does
    /// (`StreamLink.healthyUntil`): the gate the fetch loop and the price intake both ask.
    public var gate: StreamGate<C.Instant> {
        StreamGate(bell: standbyBell) { [self] now in currentLink.healthyUntil(at: now) }
    }

    public func report(at now: C.Instant) -> SourcesReport.Stream { currentLink.report(at: now) }

    /// Venues that refused their stream before a restart stay refused for the rest of their
    /// hour, so a restart loop never asks a geo-blocking venue again; returns them.
    public func resumeRefusals(from ledger: SourceLedger<C.Instant>, at now: C.Instant) -> [(venue: SourceName, until: C.Instant)] {
        links.compactMap { link in
            guard let until = ledger.streamRefusal(link.venue, at: now) else { return nil }
            _ = link.handle(.refusedBefore(until: until), at: now, jitter: 0)
            return (link.venue, until)
        }
    }

    /// A reload changed the freshness settings the silence limit follows.
    public func use(priceSilenceAfter limit: Duration) {
        for link in links { _ = link.handle(.priceSilenceAfter(limit), at: clock.now, jitter: 0) }
        standbyBell.ring()
    }

    /// The supervision as a service: every message goes into `intake`, and a refusal to the
    /// ledger's door (`LedgerDoor.handle`), which keeps it in sources.json across a restart.
    public func service(feeding intake: PriceIntake<C>, telling ledger: @escaping @Sendable (LedgerEvent<C.Instant>) async -> Void) -> Supervision {
        Supervision(supervisor: self, intake: intake, ledger: ledger)
    }

    public struct Supervision: Service {
        let supervisor: StreamSupervisor
        let intake: PriceIntake<C>
        let ledger: @Sendable (LedgerEvent<C.Instant>) async -> Void

        public func run() async throws {
            await withTaskExecutorPreference(supervisor.executor) {
                await cancelWhenGracefulShutdown { await supervisor.keepStreaming(into: intake, telling: ledger) }
            }
        }
    }

    /// Of the links in the user's order, picks the one to use next (`StreamLink.preferred`).
    private func choose(at now: C.Instant) -> VenueLink<C.Instant> {
        let index = StreamLink.preferred(links.map(\.link), at: now) ?? 0
        inUse.store(index, ordering: .relaxed)
        return links[index]
    }

    private func keepStreaming(into intake: PriceIntake<C>, telling ledger: @Sendable (LedgerEvent<C.Instant>) async -> Void) async {
        let announcements = StreamAnnouncements()
        while !Task.isCancelled {
            let link = choose(at: clock.now)
            var actions = link.handle(.attempt, at: clock.now, jitter: 0)
            if case .rest(let until)? = actions.first {
                do { try await clock.sleep(until: until, tolerance: nil) } catch { return }
                actions = link.handle(.attempt, at: clock.now, jitter: 0)
            }
            // Still resting (a timer that ended early): choose again, and sleep the rest.
            guard case .open(let first)? = actions.first else { continue }
            guard let ending = await supervise(link, opening: first, into: intake, announcements: announcements) else { return }
            let venue = link.venue.rawValue
            if case .refused = ending {
                if case .refused(let until) = link.link.phase { await ledger(.streamRefused(link.venue, until: until)) }
                let next = choose(at: clock.now).venue.rawValue
                let instead = next == venue ? "polling REST instead" : "streaming from \(next) if it can, polling REST meanwhile"
                if announcements.refused(venue) {
                    logger.warning("\(venue) refused the stream (declined upgrade, as from a restricted location); \(instead), and not asking \(venue) for its stream again for \(link.link.policy.refusalCooldown.humanReadable)",
                                   metadata: ["source": "\(venue)"])
                }
            } else if announcements.down(venue) {
                logger.warning("\(venue) stream is down (\(ending.description)); polling REST until it is back", metadata: ["source": "\(venue)"])
            }
        }
    }

    /// What the connections and the watch tell the loop that owns them.
    private enum Signal: Sendable {
        case act(StreamLink<C.Instant>.Action)
        case ended(Int, StreamLink<C.Instant>.Ending)
    }

    /// Runs `link`'s connections, from `first`, until the link hands over to REST (nil when
    /// cancelled), and beside them the watch on the link for stalls, the connect timeout and
    /// rotation. A rotation (the connection's age, or the venue's notice that it will close)
    /// opens a replacement beside the live connection, and the link retires the old one only
    /// when the replacement carries its first message: no trade is missed and no REST call is
    /// spent. Specialised for the daemon's clock, and with it every read's path (the intake,
    /// the board, the publisher): reached only through `any Service`, it would otherwise stay
    /// generic and pay for a metadata lookup at each use of the clock's types.
    @_specialize(where C == DaemonClock)
    private func supervise(_ link: VenueLink<C.Instant>, opening first: Int, into intake: PriceIntake<C>,
                           announcements: StreamAnnouncements) async -> StreamLink<C.Instant>.Ending? {
        let (signals, sink) = AsyncStream.makeStream(of: Signal.self)
        defer { sink.finish() }
        let (clock, jitter, tolerance, venue, bell, logger) = (self.clock, self.jitter, timerTolerance, link.venue, standbyBell, self.logger)
        let perform = performer(venue, announcements: announcements, sink: sink)
        return await withDiscardingTaskGroup(returning: StreamLink<C.Instant>.Ending?.self) { group in
            var closers: [Int: ConnectionCloser] = [:]
            func open(_ id: Int) {
                let closer = ConnectionCloser()
                closers[id] = closer
                group.addTask {
                    let ending = await closer.run({ await Self.connect(id, link, clock: clock, into: intake, perform: perform) },
                                                  closed: StreamLink<C.Instant>.Ending.closed("closed by the supervisor"))
                    sink.yield(.ended(id, ending))
                }
            }
            group.addTask { await Self.watch(link, clock: clock, jitter: jitter, tolerance: tolerance, perform: perform) }
            open(first)
            for await signal in signals {
                switch signal {
                case .act(.open(let id)):
                    logger.debug("opening a replacement \(venue.rawValue) stream connection before the venue closes this one")
                    open(id)
                case .act(.close(let id)):
                    closers.removeValue(forKey: id)?.close()
                case .act(.handOver(let ending)):
                    // REST resumes now; the group then waits for the connections' close.
                    bell.ring()
                    group.cancelAll()
                    return ending
                case .act:
                    continue
                case .ended(let id, let ending):
                    closers[id] = nil
                    let actions = link.handle(.ended(id, ending), at: clock.now, jitter: jitter.unitInterval())
                    if case .handOver(let ending)? = actions.first {
                        bell.ring()
                        group.cancelAll()
                        return ending
                    }
                }
            }
            group.cancelAll()
            return nil
        }
    }

    /// What the link answers on a connection's or the watch's thread: the log line here, the
    /// rest to the supervising loop.
    private func performer(_ venue: SourceName, announcements: StreamAnnouncements,
                           sink: AsyncStream<Signal>.Continuation) -> @Sendable ([StreamLink<C.Instant>.Action]) -> Void {
        let logger = self.logger
        return { actions in
            for action in actions {
                switch action {
                case .carrying:
                    if let line = announcements.live(venue.rawValue) { logger.info("\(line)", metadata: ["source": "\(venue.rawValue)"]) }
                case .open, .close, .handOver: sink.yield(.act(action))
                case .live, .rest: break
                }
            }
        }
    }

    /// One connection of the link: each message's trades go to the intake on the connection's
    /// own thread, when the link counts them (a replacement's duplicates do not).
    @_specialize(where C == DaemonClock)
    private static func connect(_ id: Int, _ link: VenueLink<C.Instant>, clock: C, into intake: PriceIntake<C>,
                                perform: @escaping @Sendable ([StreamLink<C.Instant>.Action]) -> Void) async -> StreamLink<C.Instant>.Ending {
        let venue = link.venue
        return await link.connection.run(
            opened: { perform(link.handle(.opened(id), at: clock.now, jitter: 0)) },
            received: { events in
                let reception = link.received(events, from: id, at: clock.now)
                if !reception.actions.isEmpty { perform(reception.actions) }
                guard reception.counts else { return }
                intake.accept(events, from: venue) { event in link.order.withLock { $0.admits(event) } }
            })
    }

    /// The watch on the link for stalls, the connect timeout and rotation, until it hands over.
    private static func watch(_ link: VenueLink<C.Instant>, clock: C, jitter: any JitterSource, tolerance: Duration?,
                              perform: @Sendable ([StreamLink<C.Instant>.Action]) -> Void) async {
        while true {
            let now = clock.now
            let actions = link.handle(.due, at: now, jitter: jitter.unitInterval())
            perform(actions)
            if actions.contains(where: \.isHandOver) { return }
            do { try await clock.sleep(until: link.nextCheck(at: now), tolerance: tolerance) } catch { return }
        }
    }
}

extension StreamLink.Action {
    var isHandOver: Bool {
        if case .handOver = self { return true }
        return false
    }
}
