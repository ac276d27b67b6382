#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import PriceCore
import ListenerKit
import WireProtocol

/// Tells a connection that the listener stops (`HTTPAPIServer.shutdown`): it ends as its phase
/// allows (`HTTPConnectionLifecycle.drain`).
struct HTTPDrain: Sendable {}

/// One HTTP/1.1 connection's request loop, in the pipeline after NIO's request decoder: each
/// request's head is checked (`RequestHeadCheck`), answered through the routes and written as
/// one buffer (`HTTPResponseWriter`); `GET /api/v1/events` turns the connection into an event
/// stream. When it may close (idle too long, or the listener stopping) is the lifecycle's
/// decision (`HTTPConnectionLifecycle`), on the event loop's time.
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
    /// The channel's writability as its last change said: asked before every read, and a
    /// stored flag costs less than asking the channel each time.
    private var writable = true
    private var request: HTTPRequestHead?
    private var lifecycle: HTTPConnectionLifecycle?
    private var idleTimer: Scheduled<Void>?
    /// `Date`, made once a second rather than once an answer.
    private var date = (second: 0, header: "")

    init(server: HTTPServerContext, occupant: Occupant<String>, decoder: any RemovableChannelHandler) {
        self.server = server
        self.occupant = occupant
        self.decoder = decoder
    }

    private var streaming: Bool { lifecycle?.phase == .streaming }

    // MARK: Backpressure

    /// No reading while the answers already written wait for the client: a client that
    /// pipelines requests and reads nothing holds at most the write buffer's high-water mark.
    func read(context: ChannelHandlerContext) {
        if writable { context.read() } else { readHeld = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writable = context.channel.isWritable
        if writable && readHeld {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { open(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        open(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        occupant.leave()
        server.connections.remove(context.channel)
        if streaming { server.events.leave(context.channel) }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is HTTPDrain else { return context.fireUserInboundEventTriggered(event) }
        switch lifecycle?.drain() {
        case .closeNow?: context.close(promise: nil)
        // The stream's last event and close come from the event streams' shutdown.
        case .closeAfterAnswer?, .lastEvent?, nil: break
        }
    }

    private func open(_ context: ChannelHandlerContext) {
        guard lifecycle == nil else { return }
        let lifecycle = HTTPConnectionLifecycle(requestTimeout: server.requestTimeout, openedAt: context.eventLoop.now)
        self.lifecycle = lifecycle
        server.connections.add(context.channel)
        if let first = lifecycle.firstCheck { scheduleIdleCheck(at: first, context: context) }
    }

    /// One timer per connection: it looks when it fires and reschedules itself, so an answer
    /// only notes the time instead of rescheduling a timer.
    private func scheduleIdleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        idleTimer = loop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            switch handler.lifecycle?.check(at: loop.now) {
            case .close?:
                handler.server.metrics.reject(.requestTimeout)
                context.close(promise: nil)
            case .checkAgain(let next)?:
                handler.scheduleIdleCheck(at: next, context: context)
            case .quiet?, nil:
                break
            }
        }
    }

    // MARK: Requests

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
            lifecycle?.requestArrived()
            respond(to: head, context: context)
        }
    }

    /// A request the parser cannot read gets 400 and the connection closes: nothing after it
    /// can be trusted to start a request.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !streaming else { return context.close(promise: nil) }
        let version = request?.version ?? .http1_1
        request = nil
        lifecycle?.requestArrived()
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

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let check = RequestHeadCheck(head, policy: server.policy)
        if let refusal = check.refusal {
            if refusal.misdirected { server.metrics.reject(.misdirected) }
            return send(refusal.answer, version: head.version, method: head.method, keepAlive: false, context: context)
        }
        let target = RequestTarget(head.uri), route = HTTPRoutes.route(target.path)
        server.metrics.count(route)
        var answer = server.routes.answer(method: head.method, route: route, target: target)
        if check.origin != nil { answer.headers += server.policy.corsHeaders(origin: check.origin) }
        if case .events(let topic) = answer.kind, head.method == .GET {
            startEvents(answer, topic: topic, head: head, context: context)
        } else {
            send(answer, version: head.version, method: head.method, keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func send(_ answer: HTTPAnswer, version: HTTPVersion, method: HTTPMethod, keepAlive: Bool, context: ChannelHandlerContext) {
        // Asked before writing: a listener that stops sends this answer with `Connection: close`.
        let staysOpen = lifecycle?.answered(keepAlive: keepAlive, at: context.eventLoop.now) ?? false
        let buffer = HTTPResponseWriter.response(answer, version: version, method: method, keepAlive: staysOpen, date: dateHeader(),
                                                 allocator: context.channel.allocator)
        if staysOpen {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
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

    /// The connection leaves HTTP: the parser goes, the response head is written as it is, and
    /// the event streams take it with its first event, under the socket's `watch` rules.
    private func startEvents(_ answer: HTTPAnswer, topic: WatchTopic, head: HTTPRequestHead, context: ChannelHandlerContext) {
        if let refusal = occupant.startWatching() {
            server.metrics.reject(refusal)
            return send(.error(.serviceUnavailable, ErrorReply.busy(server.budget.message(for: refusal)), headers: [("Retry-After", "5")]),
                        version: head.version, method: head.method, keepAlive: false, context: context)
        }
        lifecycle?.startedStreaming()
        idleTimer?.cancel()
        let raw = HTTPResponseWriter.eventStreamHead(answer, date: dateHeader())
        let channel = context.channel, server = self.server
        context.pipeline.syncOperations.removeHandler(decoder).assumeIsolated().whenComplete { result in
            // Lines go out on the socket itself while NIO holds nothing for it; an earlier
            // answer still queued (a pipelining client that does not read) would be overtaken.
            let queued = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
            guard case .success = result, queued == 0,
                  server.events.join(channel, head: raw, firstLines: server.routes.firstEvents(topic), topic: topic) else {
                channel.close(promise: nil)
                return
            }
        }
    }
}
