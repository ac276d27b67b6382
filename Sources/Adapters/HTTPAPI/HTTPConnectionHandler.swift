import NIOCore
import NIOHTTP1
import SocketServer
import WireProtocol

/// One HTTP/1.1 connection, with keep-alive: checks each request's `Host`, answers it through
/// the routes, and turns the connection into an event stream for `GET /api/v1/events`.
/// A connection that sends no complete request within the request timeout (at its start, or
/// after an answer) is closed, so an idle or trickling client cannot hold a place.
final class HTTPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: HTTPServerContext
    private let occupant: Occupant<String>
    /// The handlers that speak HTTP, removed when the connection becomes an event stream.
    private let codec: [any RemovableChannelHandler]
    private var request: HTTPRequestHead?
    private var streaming = false
    private var idleDeadline: Scheduled<Void>?

    init(server: HTTPServerContext, occupant: Occupant<String>, codec: [any RemovableChannelHandler]) {
        self.server = server
        self.occupant = occupant
        self.codec = codec
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armIdleDeadline(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armIdleDeadline(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleDeadline?.cancel()
        occupant.leave()
        if streaming { server.events.leave(context.channel) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // An event stream's client has nothing more to say: what it sends is dropped unread.
        guard !streaming else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            idleDeadline?.cancel()
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    /// NIO's protocol error handler has already answered a malformed request with 400.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func armIdleDeadline(_ context: ChannelHandlerContext) {
        idleDeadline?.cancel()
        let channel = context.channel, server = self.server
        idleDeadline = channel.eventLoop.scheduleTask(in: server.requestTimeout) {
            server.metrics.reject(.requestTimeout)
            channel.close(promise: nil)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let hostHeaders = head.headers["Host"]
        if hostHeaders.count > 1 || (hostHeaders.isEmpty && head.version.isAtLeast11) {
            return send(.error(.badRequest, code: "bad-request", "an HTTP/1.1 request needs exactly one Host header"), to: head, keepAlive: false, context: context)
        }
        if let host = hostHeaders.first, !server.policy.allows(host: host) {
            server.metrics.reject(.misdirected)
            return send(.error(.misdirectedRequest, code: "misdirected",
                               "this listener answers loopback addresses, localhost and the names in BTCPRICED_HTTP_HOSTS, not \(Self.quoted(host))"),
                        to: head, keepAlive: false, context: context)
        }
        let route = HTTPRoutes.route(RequestTarget(head.uri).path)
        server.metrics.count(route)
        var answer = server.routes.answer(method: head.method, uri: head.uri)
        answer.headers += server.policy.corsHeaders(origin: head.headers.first(name: "Origin"))
        if answer.kind == .events && head.method == .GET {
            startEvents(answer, head: head, context: context)
        } else {
            send(answer, to: head, keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func send(_ answer: HTTPAnswer, to request: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(answer.headers)
        headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if !request.version.isAtLeast11 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        let version: HTTPVersion = request.version.isAtLeast11 ? .http1_1 : request.version
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: answer.status, headers: headers))), promise: nil)
        if request.method != .HEAD && !answer.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: answer.body)))), promise: nil)
        }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            armIdleDeadline(context)
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// The connection leaves HTTP: the codec goes, the response head is written as it is (no
    /// length, no chunks: the stream ends when the connection does), and the event streams
    /// take it with its first event, under the socket's `watch` rules.
    private func startEvents(_ answer: HTTPAnswer, head: HTTPRequestHead, context: ChannelHandlerContext) {
        if let refusal = occupant.startWatching() {
            server.metrics.reject(refusal)
            return send(.error(.serviceUnavailable, ErrorReply.busy(server.budget.message(for: refusal)), headers: [("Retry-After", "5")]),
                        to: head, keepAlive: false, context: context)
        }
        streaming = true
        idleDeadline?.cancel()
        var raw = "HTTP/1.1 200 OK\r\n"
        for (name, value) in answer.headers { raw += "\(name): \(value)\r\n" }
        raw += "Connection: close\r\n\r\n"
        let channel = context.channel, server = self.server
        let removals = codec.map { context.pipeline.syncOperations.removeHandler($0) }
        EventLoopFuture.andAllSucceed(removals, on: channel.eventLoop).assumeIsolated().whenComplete { result in
            // Lines go out on the socket itself while NIO holds nothing for it; an earlier
            // answer still queued (a pipelining client that does not read) would be overtaken.
            let queued = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
            guard case .success = result, queued == 0,
                  server.events.join(channel, head: raw, firstLine: server.routes.firstEvent()) else {
                channel.close(promise: nil)
                return
            }
        }
    }

    /// A header value in a message: quoted, cut short and printable.
    static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(64).map { $0.isASCII && !$0.isNewline && ($0.asciiValue ?? 0) >= 0x20 ? $0 : "?" }) + "\""
    }
}

extension HTTPVersion {
    /// HTTP/1.1 or later: a Host header is required, and keep-alive is the default.
    var isAtLeast11: Bool { major > 1 || (major == 1 && minor >= 1) }
}
