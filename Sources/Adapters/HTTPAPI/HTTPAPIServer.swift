#if canImport(Glibc)
import Glibc
#endif
import CoreMetrics
import Logging
import NIOCore
import PriceCore
import NIOHTTP1
import NIOPosix
import ListenerKit
import WireProtocol

/// The HTTP listener (`BTCPRICED_HTTP_LISTEN`): the API, the event stream, the compatible
/// routes, the dashboard and `GET /metrics`, over HTTP/1.1 with keep-alive: SwiftNIO parses the
/// requests (NIOHTTP1), and each answer goes out as one buffer (see HTTPConnectionHandler).
/// Bounded like the Unix socket: the same connection cap and shares (a remote address is one
/// party), request heads of at most 8 KiB, a complete request within 10 s, and event streams
/// under the `watch` rules.
public final class HTTPAPIServer: Sendable {
    public enum Listener: Sendable, Equatable {
        case address(host: String, port: Int)
        /// A listening TCP socket passed by systemd (`btcpriced-http.socket`).
        case inheritedDescriptor(Int32)
    }

    /// A client must send a complete request within this long, at its start and after each answer.
    public static let requestTimeout = TimeAmount.seconds(10)

    private let channel: any Channel
    private let context: HTTPServerContext
    /// Where the daemon's `watch` lines go as events.
    public var events: EventStreams { context.events }

    private init(channel: any Channel, context: HTTPServerContext) {
        self.channel = channel
        self.context = context
    }

    /// Binds (or adopts) the listener; clients can connect when this returns.
    public static func start(listener: Listener, routes: HTTPRoutes, policy: HostPolicy, limits: ServerLimits,
                             metrics: any MetricsFactory = MetricsSystem.factory, audience: WatchAudience = WatchAudience(),
                             currencyAudiences: [String: WatchAudience] = [:], logger: Logger,
                             group: any EventLoopGroup, now: @escaping @Sendable () -> Duration) async throws -> HTTPAPIServer {
        let loop = group.next()
        let httpMetrics = HTTPMetrics(factory: metrics)
        let context = HTTPServerContext(
            routes: routes, policy: policy, metrics: httpMetrics,
            budget: ConnectionBudget(limits: limits, wording: .http, logger: logger, now: now),
            events: EventStreams(hub: WatchHub(limits: limits, counters: httpMetrics.eventCounters, now: now, audience: audience,
                                               currencyAudiences: currencyAudiences), loop: loop),
            requestTimeout: requestTimeout)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: Int32(clamping: max(limits.maximumConnections, 256)))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.watchBacklogLimit / 2, high: limits.watchBacklogLimit))
            .childChannelInitializer { channel in channel.eventLoop.makeCompletedFuture { try context.admit(channel) } }
        let channel: any Channel
        switch listener {
        case .address(let host, let port):
            channel = try await bootstrap.bind(host: host, port: port).get()
        case .inheritedDescriptor(let descriptor):
            channel = try await bootstrap.withBoundSocket(descriptor).get()
        }
        return HTTPAPIServer(channel: channel, context: context)
    }

    /// The port actually bound (for a listener asked to bind port 0).
    public var port: Int? { channel.localAddress?.port }
    public var openConnections: Int { context.budget.openConnections }

    /// How long a stop waits for connections to end as their phase allows before it closes them.
    public static let drainLimit = TimeAmount.seconds(2)

    /// Stops accepting, then drains: an idle keep-alive connection closes at once, one being
    /// answered closes after its answer (sent with `Connection: close`), and each event stream
    /// gets a last event and ends. Whatever is still open after `drainLimit` is closed.
    public func shutdown() async {
        try? await channel.close()
        let context = self.context
        for connection in context.connections.all { connection.pipeline.fireUserInboundEventTriggered(HTTPDrain()) }
        await context.events.shutdown()
        let forced = channel.eventLoop.scheduleTask(in: Self.drainLimit) {
            for connection in context.connections.all { connection.close(promise: nil) }
        }
        await context.budget.until { context.budget.openConnections == 0 }
        forced.cancel()
    }
}

/// What every connection of one listener shares.
final class HTTPServerContext: Sendable {
    let routes: HTTPRoutes
    let policy: HostPolicy
    let metrics: HTTPMetrics
    let budget: ConnectionBudget<String>
    let events: EventStreams
    let requestTimeout: TimeAmount
    /// Every open connection, for the drain at stop.
    let connections = OpenConnections()

    init(routes: HTTPRoutes, policy: HostPolicy, metrics: HTTPMetrics, budget: ConnectionBudget<String>, events: EventStreams,
         requestTimeout: TimeAmount) {
        self.routes = routes
        self.policy = policy
        self.metrics = metrics
        self.budget = budget
        self.events = events
        self.requestTimeout = requestTimeout
    }

    /// Gives a new connection its place and its pipeline, or tells it why there is none.
    func admit(_ channel: any Channel) throws {
        let party = channel.remoteAddress?.ipAddress ?? "unknown"
        let seat: ConnectionBudget<String>.Seat
        do {
            seat = try budget.admit(party)
        } catch {
            metrics.reject(error)
            try channel.pipeline.syncOperations.addHandler(TurnAway(message: budget.message(for: error)))
            return
        }
        // The parser counts the request target and every header name and value against the
        // 8 KiB limit (a head over it is `headerOverflow`, answered 431).
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = HTTPConnectionHandler.maximumHeadBytes
        limits.maxHeaderListSize = HTTPConnectionHandler.maximumHeadBytes
        limits.maxHeaderFieldCount = 100
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop,
                                                              limitConfiguration: limits))
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(decoder)
        try pipeline.addHandler(HTTPConnectionHandler(server: self, occupant: Occupant(seat), decoder: decoder))
    }
}

/// Answers a connection over its limits with 503 and the reason, then closes it.
private final class TurnAway: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let message: String

    init(message: String) { self.message = message }

    func channelActive(context: ChannelHandlerContext) {
        let body = ErrorReply.busy(message).line
        let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 5\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: response))).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

extension ConnectionBudget.Wording where Party == String {
    /// An HTTP client is its remote address.
    static var http: Self { Self(server: "the HTTP listener") { "address \($0)" } }
}

extension HTTPAPIServer {
    /// Why the listener a setting asks for could not start, in words an operator can act on:
    /// the operator picked the address, so a port in use is theirs to change.
    public struct ListenError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `start`, with a failure explained as `setting`'s.
    public static func listen(_ listener: Listener, setting: String, routes: HTTPRoutes, policy: HostPolicy, limits: ServerLimits,
                              audience: WatchAudience, currencyAudiences: [String: WatchAudience] = [:], logger: Logger, group: any EventLoopGroup,
                              now: @escaping @Sendable () -> Duration) async throws(ListenError) -> HTTPAPIServer {
        do {
            return try await start(listener: listener, routes: routes, policy: policy, limits: limits, audience: audience,
                                   currencyAudiences: currencyAudiences, logger: logger, group: group, now: now)
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            switch listener {
            case .address(let host, let port):
                let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                throw ListenError(description: "cannot listen for HTTP on \(address) (\(setting)): \(reason); is another program using that port? Pick another, or leave \(setting) empty")
            case .inheritedDescriptor(let descriptor):
                throw ListenError(description: "cannot serve HTTP on the socket systemd passed (fd \(descriptor), btcpriced-http.socket): \(reason)")
            }
        }
    }
}
