import CoreMetrics
import NIOConcurrencyHelpers
import NIOCore
import PriceCore
import WireProtocol

/// One client connection: answer its request line (framed by `RequestLineDecoder`), then close,
/// or keep streaming for `watch`.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let context: ServerContext
    private var answered = false
    private var counted = false
    private var deadline: Scheduled<Void>?

    init(context: ServerContext) {
        self.context = context
    }

    func channelActive(context channelContext: ChannelHandlerContext) {
        guard self.context.admitConnection() else {
            turnAway(context: channelContext)
            return
        }
        counted = true
        let channel = channelContext.channel
        deadline = channelContext.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(self.context.limits.requestTimeout)) { [weak self] in
            guard let self, !self.answered else { return }
            self.answered = true
            self.context.metrics.reject(.requestTimeout)
            let line = ErrorReply.badRequest("no complete request line within \(self.context.limits.requestTimeout.humanReadable)").line
            channel.writeAndFlush(channel.allocator.buffer(string: line)).whenComplete { _ in channel.close(promise: nil) }
        }
        channelContext.fireChannelActive()
    }

    func channelInactive(context channelContext: ChannelHandlerContext) {
        deadline?.cancel()
        if counted { self.context.releaseConnection() }
        self.context.watchers.remove(channelContext.channel)
        channelContext.fireChannelInactive()
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        handle(unwrapInboundIn(data).readableBytesView, context: channelContext)
    }

    /// The decoder has already handed on a request that ended at end of input; what is left is a
    /// client that hung up without asking, or one turned away.
    func userInboundEventTriggered(context channelContext: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed, !answered || !counted {
            answered = true
            channelContext.close(promise: nil)
        }
        channelContext.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context channelContext: ChannelHandlerContext, error: any Error) {
        channelContext.close(promise: nil)
    }

    private func handle(_ line: ByteBufferView, context channelContext: ChannelHandlerContext) {
        answered = true
        deadline?.cancel()
        let request = Request.parse(line)
        context.metrics.count(try? request.get())
        switch request {
        case .failure(let error):
            reply(error.line, context: channelContext)
        case .success(.ping):
            reply(PingReply.line, context: channelContext)
        case .success(.version):
            reply(VersionReply(version: context.version).line, context: channelContext)
        case .success(.status):
            reply(context.status.statusReply(), context: channelContext)
        case .success(.price):
            reply(context.status.priceReply(), context: channelContext)
        case .success(.watch):
            startWatching(context: channelContext)
        case .success(.sources):
            reply(context.status.sourcesReport(), context: channelContext)
        case .success(.history(let query)):
            reply(context.status.historyReply(query), context: channelContext)
        case .success(.metrics):
            reply(context.status.metricsReply(), context: channelContext)
        }
    }

    /// Over the cap: say so, then half-close and drain, because closing with the client's request
    /// still unread would reset the connection and lose the explanation.
    private func turnAway(context channelContext: ChannelHandlerContext) {
        answered = true
        context.metrics.reject(.connectionLimit)
        let channel = channelContext.channel
        let line = ErrorReply.busy("too many connections (limit \(context.limits.maximumConnections)); try again").line
        channelContext.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: line))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        // Bounded: a turned-away client must not keep a descriptor long, or a flood of them
        // would use up what the cap keeps in reserve.
        channelContext.eventLoop.scheduleTask(in: .milliseconds(250)) { channel.close(promise: nil) }
    }

    private func startWatching(context channelContext: ChannelHandlerContext) {
        // Registered and sent its first line in one step on this loop, so no update can fall
        // between the snapshot and the stream.
        guard context.watchers.add(channelContext.channel, firstLine: context.status.statusReply()) else {
            reply(ErrorReply.busy("the daemon is shutting down").line, context: channelContext)
            return
        }
    }

    private func reply(_ line: String, context channelContext: ChannelHandlerContext) {
        answered = true
        let channel = channelContext.channel
        channelContext.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: line))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// State shared by all connections of one server.
final class ServerContext: Sendable {
    let status: any StatusProvider
    let version: String
    let limits: ServerLimits
    let watchers: WatchHub
    let metrics: SocketMetrics
    private let connections = NIOLockedValueBox(0)

    init(status: any StatusProvider, version: String, limits: ServerLimits, metrics: any MetricsFactory,
         now: @escaping @Sendable () -> Duration) {
        self.status = status
        self.version = version
        self.limits = limits
        self.metrics = SocketMetrics(factory: metrics)
        self.watchers = WatchHub(limits: limits, metrics: self.metrics, now: now)
    }

    func admitConnection() -> Bool {
        connections.withLockedValue { count in
            guard count < limits.maximumConnections else { return false }
            count += 1
            return true
        }
    }

    func releaseConnection() {
        connections.withLockedValue { $0 -= 1 }
    }

    var openConnections: Int { connections.withLockedValue { $0 } }
}
