import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// `GET /metrics` over HTTP/1.1 for a Prometheus server to scrape. One request per connection,
/// answered and closed; bounded like the Unix socket: at most `maximumConnections` at once, a
/// complete request within `requestTimeout`, and NIO's parser caps the header (80 KiB) and
/// answers junk with 400.
public final class MetricsHTTPServer: Sendable {
    public static let maximumConnections = 64
    public static let requestTimeout = TimeAmount.seconds(5)

    private let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    public static func start(host: String, port: Int, group: any EventLoopGroup,
                             exposition: @escaping @Sendable () -> String) async throws -> MetricsHTTPServer {
        let open = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let admitted = open.withLockedValue { count -> Bool in
                    guard count < maximumConnections else { return false }
                    count += 1
                    return true
                }
                guard admitted else { return channel.close() }
                channel.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
                let deadline = channel.eventLoop.scheduleTask(in: requestTimeout) { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in deadline.cancel() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsRequestHandler(exposition: exposition))
                }
            }
            .bind(host: host, port: port).get()
        return MetricsHTTPServer(channel: channel)
    }

    /// The port actually bound (for a listener asked to bind port 0).
    public var port: Int? { channel.localAddress?.port }

    public func shutdown() async {
        try? await channel.close()
    }
}

final class MetricsRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exposition: @Sendable () -> String
    private var answered = false

    init(exposition: @escaping @Sendable () -> String) {
        self.exposition = exposition
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
        answered = true
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            respond(.ok, body: exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8",
                    includeBody: head.method == .GET, version: head.version, context: context)
        case (_, "/metrics"):
            respond(.methodNotAllowed, body: "only GET and HEAD\n", extraHeaders: [("Allow", "GET, HEAD")], version: head.version, context: context)
        default:
            respond(.notFound, body: "btcpriced serves /metrics only\n", version: head.version, context: context)
        }
    }

    /// NIO's protocol error handler has already answered a malformed request with 400; nothing
    /// more can be read from this connection, so it is closed now rather than at the deadline.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(_ status: HTTPResponseStatus, body: String, contentType: String = "text/plain; charset=utf-8",
                         extraHeaders: [(String, String)] = [], includeBody: Bool = true, version: HTTPVersion,
                         context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.utf8.count)), ("Connection", "close")])
        headers.add(contentsOf: extraHeaders)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if includeBody {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

extension MetricsHTTPServer {
    /// Why the listener a setting asks for could not start, in words an operator can act on:
    /// the operator picked the address, so a port in use is theirs to change.
    public struct ListenError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `start`, with a failure explained as `setting`'s.
    public static func listen(host: String, port: Int, setting: String, group: any EventLoopGroup,
                              exposition: @escaping @Sendable () -> String) async throws(ListenError) -> MetricsHTTPServer {
        do {
            return try await start(host: host, port: port, group: group, exposition: exposition)
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            throw ListenError(description: "cannot listen for metrics on \(address) (\(setting)): \(reason); is another program using that port? Pick another, or leave \(setting) empty")
        }
    }
}
