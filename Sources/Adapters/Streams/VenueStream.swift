import EventLoopScheduling
import Exchanges
import NIOCore
import NIOPosix
import PriceCore
import NIOWebSocket

/// One connection to a venue's stream over WebSocket (`WebSocketConnection` on SwiftNIO): connect, subscribe,
/// and hand on what each message says until the connection ends, which it reports as a
/// `StreamLink.Ending`. `wss://` always verifies the certificate (NIOSSL's client defaults).
public struct VenueStream: PriceStream {
    public let venue: Venue
    /// The configured base URL; the venue's stream path is appended to it.
    public let url: String
    public let options: VenueOptions
    /// The loop the connection and its reader run on.
    public let eventLoop: any EventLoop
    /// While messages keep coming, the connection is read at most once per this interval (the
    /// publish interval), and only each read's newest price counts; zero reads every message.
    public let readInterval: Duration
    /// Reads the stream more slowly while nobody watches, and catches it up for whoever asks.
    public let reads: PacedReads?
    private let connectURL: String
    /// The proxy the connection goes through, if any.
    public let proxy: ProxyURL?
    /// How long the TCP connection (to the venue, or to the proxy) may take.
    public let connectTimeout: Duration
    private let greetings: [String]
    private let parse: @Sendable ([UInt8]) throws(FetchFailure) -> [StreamEvent]

    /// Nil for a venue without a stream. The connection carries the pairs of `currencies` (the
    /// options' currency alone by default), every message naming its pair.
    public init?(venue: Venue, url: String, options: VenueOptions = VenueOptions(), currencies: [String]? = nil, readInterval: Duration = .zero,
                 reads: PacedReads? = nil, proxy: ProxyURL? = nil, connectTimeout: Duration = StreamPolicy.defaultConnectTimeout,
                 eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()) {
        guard let endpoint = venue.stream, let connectURL = venue.streamURL(baseURL: url, options, currencies: currencies) else { return nil }
        self.venue = venue
        self.url = url
        self.options = options
        self.readInterval = readInterval
        self.reads = reads
        self.eventLoop = eventLoop
        self.connectURL = connectURL
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        greetings = endpoint.greetings(options, currencies: currencies)
        parse = endpoint.parser(options, currencies: currencies)
    }

    /// Runs one connection to its end. `opened` is called once the upgrade succeeded, `received`
    /// with the events of every message (with a `readInterval`, of every read's messages
    /// together), both on `eventLoop`. Cancelling the task closes the connection.
    public func run<Instant>(opened: @escaping @Sendable () -> Void,
                             received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        await withTaskExecutorPreference(EventLoopExecutor(eventLoop)) {
            await connect(opened: opened, received: received)
        }
    }

    private func connect<Instant>(opened: @escaping @Sendable () -> Void,
                                  received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        guard let target = WebSocketConnection.Target(url: connectURL) else { return .failed("\(venue.name) stream: not a ws:// or wss:// URL") }
        let batch = readInterval > .zero ? ReadBatch() : nil
        let reason = await WebSocketConnection.run(
            target, proxy: proxy, connectTimeout: TimeAmount(connectTimeout), on: eventLoop, greetings: greetings, maximumMessage: StreamLimits.largestMessage,
            readInterval: readInterval > .zero ? TimeAmount(readInterval) : nil, reads: reads, opened: opened,
            message: { frame in
                do throws(FetchFailure) {
                    let events = try parse(frame)
                    if let batch { batch.events += events } else { received(events) }
                    return nil
                } catch {
                    batch?.deliver(to: received)
                    return "\(venue.name) sent a message that is not a ticker: \(error.description)"
                }
            },
            endOfRead: { batch?.deliver(to: received) })
        switch reason {
        case .closedByVenue(let code?): return .closed("closed by \(venue.name) (\(code))")
        case .closedByVenue(nil): return .closed("closed by \(venue.name)")
        case .closedByUs(.unacceptableData, let problem): return .failed(problem)
        // Say who closed: here btcpriced did, because the venue broke the protocol.
        case .closedByUs(let code, let problem): return .closed("closed by btcpriced: \(venue.name) \(problem) (\(code))")
        // A declined upgrade is a refusal: 451 and 403 mostly, and a 429 or a 503 deserves the
        // same long rest.
        case .declined(let status): return .refused(status: Int(status))
        case .givenUp: return .closed("cancelled")
        case .failed(let problem): return .failed("\(venue.name) stream: \(problem)")
        }
    }
}

/// The events of one read's messages, handed on together at the read's end. Only touched on
/// the connection's event loop (every frame handler callback runs there).
private final class ReadBatch: @unchecked Sendable {
    var events: [StreamEvent] = []

    func deliver(to received: ([StreamEvent]) -> Void) {
        guard !events.isEmpty else { return }
        received(events)
        events.removeAll(keepingCapacity: true)
    }
}
