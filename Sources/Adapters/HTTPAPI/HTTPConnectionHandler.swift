#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import PriceCore
import ListenerKit
import WireProtocol

/// One HTTP/1.1 connection, with keep-alive: checks each request's `Host`, answers it through
/// the routes, and turns the connection into an event stream for `GET /api/v1/events`.
/// A connection that sends no complete request within the request timeout (at its start, or
/// after an answer) is closed, so an idle or trickling client cannot hold a place.
///
/// Requests are parsed by NIO's HTTP/1.1 decoder; each answer is written as one buffer, head
/// and body together. NIO's response encoder (with the pipelining and error handlers it needs)
/// wrote three buffers an answer and cost 40 % of the throughput on loopback (scripts/bench 8a,
/// against a NIO server that writes the same bytes either way); the head here has only the
/// fields this listener sends, so there is nothing to sanitize.
final class HTTPConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The request target and headers together, at most (else 431).
    static let maximumHeadBytes = 8 * 1024

    private let server: HTTPServerContext
    private let occupant: Occupant<String>
    /// NIO's request parser, removed when the connection becomes an event stream.
    private let decoder: any RemovableChannelHandler
    /// A read the channel asked for while the client was not reading its answers.
    private var readHeld = false
    private var request: HTTPRequestHead?
    private var streaming = false
    /// Since when the connection waits for a complete request (its start, or the last answer);
    /// nil while one is being answered. One timer per connection reads it, so an answer only
    /// notes the time instead of rescheduling a timer.
    private var waitingSince: NIODeadline? = .now()
    private var idleTimer: Scheduled<Void>?
    /// `Date`, made once a second rather than once an answer.
    private var date = (second: 0, header: "")

    init(server: HTTPServerContext, occupant: Occupant<String>, decoder: any RemovableChannelHandler) {
        self.server = server
        self.occupant = occupant
        self.decoder = decoder
    }

    /// No reading while the answers already written wait for the client: a client that
    /// pipelines requests and reads nothing holds at most the write buffer's high-water mark.
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable { context.read() } else { readHeld = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable && readHeld {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startIdleTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startIdleTimer(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        occupant.leave()
        if streaming { server.events.leave(context.channel) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // An event stream's client has nothing more to say: what it sends is dropped unread.
        guard !streaming else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            waitingSince = nil
            respond(to: head, context: context)
        }
    }

    /// A request the parser cannot read gets 400 and the connection closes: nothing after it
    /// can be trusted to start a request.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !streaming else { return context.close(promise: nil) }
        let version = request?.version ?? .http1_1
        request = nil
        waitingSince = nil
        let answer: HTTPAnswer
        if parserError == .headerOverflow {
            server.metrics.reject(.headerTooLarge)
            answer = .error(.requestHeaderFieldsTooLarge, code: "header-too-large",
                            "the request target and headers are over \(Self.maximumHeadBytes / 1024) KiB")
        } else {
            answer = .error(.badRequest, code: "bad-request", "the request is not HTTP/1.1 this listener can read (\(parserError))")
        }
        send(answer, version: version, method: .GET, keepAlive: false, context: context)
    }

    /// Closes the connection once it has waited `requestTimeout` for a complete request; the
    /// timer looks again when it fires, and goes quiet while the connection streams events.
    private func startIdleTimer(_ context: ChannelHandlerContext) {
        guard idleTimer == nil else { return }
        scheduleIdleCheck(at: (waitingSince ?? .now()) + server.requestTimeout, context: context)
    }

    private func scheduleIdleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        idleTimer = loop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            guard !handler.streaming else { return }
            let since = handler.waitingSince ?? .now()
            if since + handler.server.requestTimeout <= .now() {
                handler.server.metrics.reject(.requestTimeout)
                context.close(promise: nil)
            } else {
                handler.scheduleIdleCheck(at: since + handler.server.requestTimeout, context: context)
            }
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        // One pass over the fields for the two this listener reads.
        var host: String?, hosts = 0, origin: String?
        for (name, value) in head.headers {
            switch name.utf8.count {
            case 4 where name.lowercased() == "host": (host, hosts) = (value, hosts + 1)
            case 6 where name.lowercased() == "origin": origin = value
            default: break
            }
        }
        if hosts > 1 || (hosts == 0 && head.version.isAtLeast11) {
            return send(.error(.badRequest, code: "bad-request", "an HTTP/1.1 request needs exactly one Host header"), to: head,
                        keepAlive: false, context: context)
        }
        if let host, !server.policy.allows(host: host) {
            server.metrics.reject(.misdirected)
            return send(.error(.misdirectedRequest, code: "misdirected",
                               "this listener answers loopback addresses, localhost and the names in BTCPRICED_HTTP_HOSTS, not \(Self.quoted(host))"),
                        to: head, keepAlive: false, context: context)
        }
        let target = RequestTarget(head.uri)
        server.metrics.count(HTTPRoutes.route(target.path))
        var answer = server.routes.answer(method: head.method, target: target)
        if origin != nil { answer.headers += server.policy.corsHeaders(origin: origin) }
        if answer.kind == .events && head.method == .GET {
            startEvents(answer, head: head, context: context)
        } else {
            send(answer, to: head, keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func send(_ answer: HTTPAnswer, to request: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        send(answer, version: request.version, method: request.method, keepAlive: keepAlive, context: context)
    }

    private func send(_ answer: HTTPAnswer, version: HTTPVersion, method: HTTPMethod, keepAlive: Bool, context: ChannelHandlerContext) {
        let bodyBytes = answer.body.utf8.count
        var buffer = context.channel.allocator.buffer(capacity: 256 + bodyBytes)
        buffer.writeString(version.isAtLeast11 ? "HTTP/1.1 " : "HTTP/1.0 ")
        buffer.writeString(answer.status == .ok ? "200 OK" : "\(answer.status.code) \(answer.status.reasonPhrase)")
        buffer.writeString("\r\nContent-Type: ")
        buffer.writeString(answer.contentType)
        buffer.writeString("\r\n")
        for (name, value) in answer.headers {
            buffer.writeString(name)
            buffer.writeString(": ")
            buffer.writeString(value)
            buffer.writeString("\r\n")
        }
        buffer.writeString("Date: ")
        buffer.writeString(dateHeader())
        buffer.writeString("\r\nContent-Length: ")
        buffer.writeString(String(bodyBytes))
        if !keepAlive {
            buffer.writeString("\r\nConnection: close")
        } else if !version.isAtLeast11 {
            buffer.writeString("\r\nConnection: keep-alive")
        }
        buffer.writeString("\r\n\r\n")
        if method != .HEAD { buffer.writeString(answer.body) }
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
            waitingSince = .now()
        } else {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func dateHeader() -> String {
        let second = time(nil)
        if second != date.second {
            date = (second, Timestamp(millisecondsSinceEpoch: Int64(second) * 1000).httpDate)
        }
        return date.header
    }

    /// The connection leaves HTTP: the parser goes, the response head is written as it is (no
    /// length, no chunks: the stream ends when the connection does), and the event streams
    /// take it with its first event, under the socket's `watch` rules.
    private func startEvents(_ answer: HTTPAnswer, head: HTTPRequestHead, context: ChannelHandlerContext) {
        if let refusal = occupant.startWatching() {
            server.metrics.reject(refusal)
            return send(.error(.serviceUnavailable, ErrorReply.busy(server.budget.message(for: refusal)), headers: [("Retry-After", "5")]),
                        to: head, keepAlive: false, context: context)
        }
        streaming = true
        idleTimer?.cancel()
        var raw = "HTTP/1.1 200 OK\r\nContent-Type: \(answer.contentType)\r\n"
        for (name, value) in answer.headers { raw += "\(name): \(value)\r\n" }
        raw += "Date: \(dateHeader())\r\nConnection: close\r\n\r\n"
        let channel = context.channel, server = self.server
        context.pipeline.syncOperations.removeHandler(decoder).assumeIsolated().whenComplete { result in
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
