import CoreMetrics
import Logging
import PriceCore
import ServiceLifecycle
import Streams
import Synchronization
import WireProtocol

/// The stream's link, shared with the fetch loop, which rests while the stream is healthy.
final class StreamState<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    let venue: SourceName
    private let link: Mutex<StreamLink<Instant>>
    /// For `btcctl sources`: connections opened, and why the last one ended.
    private let history = Mutex((connections: 0, lastEnding: String?.none))
    private let connected: Gauge
    private let reconnects: Counter

    init(venue: SourceName, link: StreamLink<Instant>, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.venue = venue
        self.link = Mutex(link)
        connected = Gauge(label: "btcpriced_stream_connected", dimensions: [("source", venue.rawValue)], factory: metrics)
        reconnects = Counter(label: "btcpriced_stream_reconnects_total", dimensions: [("source", venue.rawValue)], factory: metrics)
        connected.record(0)
    }

    func isHealthy(at now: Instant) -> Bool { link.withLock { $0.isHealthy(at: now) } }
    func update<T>(_ body: (inout StreamLink<Instant>) -> T) -> T { link.withLock { body(&$0) } }

    func opened() {
        let count = history.withLock { history in
            history.connections += 1
            return history.connections
        }
        connected.record(1)
        if count > 1 { reconnects.increment() }
    }

    func ended(_ reason: String) {
        history.withLock { $0.lastEnding = reason }
        connected.record(0)
    }

    func report(at now: Instant) -> SourcesReport.Stream {
        let state = link.withLock { link -> String in
            switch link.phase {
            case .live: link.isHealthy(at: now) ? "live" : "stalled"
            case .connecting: "connecting"
            case .waiting: "retrying"
            case .refused: "refused"
            }
        }
        let (connections, lastEnding) = history.withLock { ($0.connections, $0.lastEnding) }
        return SourcesReport.Stream(name: venue.rawValue, state: state, connections: connections, lastError: lastEnding)
    }
}

/// Keeps one venue's stream connected: every trade goes to the board (and, coalesced, to the
/// watchers); stalls and drops hand over to REST polling, which the fetch loop resumes on its
/// next tick. Logs one line per change of the stream's state.
struct StreamService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let stream: VenueStream
    let state: StreamState<C.Instant>
    let board: PriceBoard<C>
    let publisher: WatchPublisher<C>
    let persister: QuotePersister
    let health: DaemonHealth
    let clock: C
    let jitter: any JitterSource
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await keepConnected() }
    }

    private func keepConnected() async {
        // What was last said: one line when the stream goes down, one when it is live again.
        let announced = Mutex((down: false, live: false))
        let venue = state.venue.rawValue, logger = self.logger
        while !Task.isCancelled {
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
            let ending = await connectOnce(onLive: {
                let wasDown: Bool? = announced.withLock { said in
                    defer { said = (down: false, live: true) }
                    return said.live ? nil : said.down
                }
                guard let wasDown else { return }
                logger.info(wasDown ? "\(venue) stream is back; polling rests" : "streaming trades from \(venue); polling rests",
                            metadata: ["source": "\(venue)"])
            })
            if Task.isCancelled { return }
            if case .rotating = ending {
                state.update { $0.rotating(at: clock.now) }
                continue
            }
            let linkEnding = ending.linkEnding
            state.ended(linkEnding.description)
            state.update { $0.ended(linkEnding, at: clock.now, jitter: jitter.unitInterval()) }
            if !announced.withLock({ $0.down }) {
                if case .refused = linkEnding {
                    logger.warning("\(venue) refused the stream (declined upgrade, as from a restricted location); polling REST instead, and not asking for the stream again for \(state.update { $0.policy.refusalCooldown }.humanReadable)",
                                   metadata: ["source": "\(venue)"])
                } else {
                    logger.warning("\(venue) stream is down (\(linkEnding.description)); polling REST until it is back", metadata: ["source": "\(venue)"])
                }
            }
            announced.withLock { $0 = (down: true, live: false) }
        }
    }

    /// Why one connection ended, including on purpose.
    enum Outcome: Sendable {
        case ended(StreamLink<C.Instant>.Ending)
        case rotating

        var linkEnding: StreamLink<C.Instant>.Ending {
            if case .ended(let ending) = self { return ending }
            return .closed("rotation")
        }
    }

    /// Runs one connection, and beside it a watch on the link for stalls, the connect timeout
    /// and rotation; whichever ends first decides. Both run as unstructured tasks that are
    /// cancelled, not awaited: WSClient does not give up an upgrade that is never answered when
    /// cancelled, and waiting for it would hang the stream, and the daemon's shutdown, with it.
    private func connectOnce(onLive: @escaping @Sendable () -> Void) async -> Outcome {
        let rotateNow = ShutdownNotice()
        let (outcomes, decided) = AsyncStream.makeStream(of: Outcome.self, bufferingPolicy: .bufferingOldest(1))
        let connection = Task { [stream, state, clock, logger] in
            let ending: StreamLink<C.Instant>.Ending = await stream.run(
                logger: logger,
                opened: {
                    state.update { $0.opened(at: clock.now) }
                    state.opened()
                },
                received: { events in
                    let closing = state.update { $0.received(events, at: clock.now) }
                    if closing { rotateNow.heard.withLock { $0 = true } }
                    onLive()
                    deliver(events)
                })
            decided.yield(.ended(ending))
        }
        let watcher = Task { [state, clock] in
            while !Task.isCancelled {
                let now = clock.now
                if rotateNow.heard.withLock({ $0 }) || state.update({ $0.rotationDue(at: now) }) {
                    decided.yield(.rotating)
                    return
                }
                if state.update({ $0.hasStalled(at: now) }) {
                    let (connecting, limit) = state.update { link -> (Bool, Duration) in
                        if case .connecting = link.phase { return (true, link.policy.connectTimeout) }
                        return (false, link.policy.stallAfter)
                    }
                    decided.yield(.ended(connecting ? .failed("no answer within \(limit.humanReadable) of connecting") : .stalled))
                    return
                }
                // Woken at the next stall, timeout or rotation deadline, and at least every second for a shutdown notice.
                let next = state.update { $0.nextDeadline() } ?? now.advanced(by: .seconds(1))
                do { try await clock.sleep(until: min(next, now.advanced(by: .seconds(1))), tolerance: nil) } catch { return }
            }
        }
        let first = await withTaskCancellationHandler {
            var iterator = outcomes.makeAsyncIterator()
            return await iterator.next()
        } onCancel: {
            decided.finish()
        }
        connection.cancel()
        watcher.cancel()
        decided.finish()
        return first ?? .ended(.closed("cancelled"))
    }

    private func deliver(_ events: [StreamEvent]) {
        for event in events {
            switch event {
            case .trade(let trade):
                let quote = Quote(price: trade.price, currency: trade.quoteAsset, symbol: trade.symbol, source: state.venue,
                                  timestamp: board.wallClock.now())
                guard let snapshot = board.record(streamed: quote) else { continue }
                publisher.publish(snapshot)
                health.reportStatus(snapshot.status)
                persister.offer(quote)
            case .dayRange(let day):
                if let snapshot = board.record(day: day, from: state.venue) { publisher.publish(snapshot) }
            case .alive, .closingSoon:
                continue
            }
        }
    }
}

/// Set when the venue announces it will close the connection soon.
private final class ShutdownNotice: Sendable {
    let heard = Mutex(false)
}

extension StreamLink.Ending: CustomStringConvertible {
    public var description: String {
        switch self {
        case .closed(let reason), .failed(let reason): reason
        case .refused: "upgrade declined"
        case .stalled: "no message for \(StreamLink<Instant>.Policy().stallAfter.humanReadable)"
        }
    }
}
