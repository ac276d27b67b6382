import PriceCore
import ListenerKit
import CoreMetrics
import Logging
import NIOCore
import WireProtocol

/// A connection the `FrontDoor` handed to NIO with its request already read: a `watch` stream,
/// or the rest of a reply too large for the kernel to take at once. Either way the connection
/// was counted at accept and is released when it closes.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Arrival {
        case watching(WatchTopic)
        case finishing(ByteBuffer)
    }

    private let context: ServerContext
    private let arrival: Arrival
    private let occupant: UserOccupant

    init(context: ServerContext, arrival: Arrival, occupant: UserOccupant) {
        self.context = context
        self.arrival = arrival
        self.occupant = occupant
    }

    func channelActive(context channelContext: ChannelHandlerContext) {
        let channel = channelContext.channel
        switch arrival {
        case .watching(let topic):
            // Registered and sent its first line in one step on this loop, so no update can
            // fall between the snapshot and the stream.
            if !context.watchers.add(channel, firstLine: RequestResponder.streamStart(status: context.status, topic: topic), topic: topic) {
                finish(ErrorReply.busy("the daemon is shutting down").line, context: channelContext)
            }
        case .finishing(let rest):
            channelContext.writeAndFlush(wrapOutboundOut(rest)).whenComplete { _ in channel.close(promise: nil) }
        }
        channelContext.fireChannelActive()
    }

    func channelInactive(context channelContext: ChannelHandlerContext) {
        occupant.leave()
        context.watchers.remove(channelContext.channel)
        channelContext.fireChannelInactive()
    }

    /// A watcher has nothing more to say; what it sends is read and dropped, never buffered.
    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context channelContext: ChannelHandlerContext, error: any Error) {
        channelContext.close(promise: nil)
    }

    private func finish(_ line: String, context channelContext: ChannelHandlerContext) {
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
    let budget: UserBudget
    /// The server's clock, for request deadlines and the budget's log pacing.
    let now: @Sendable () -> Duration

    init(status: any StatusProvider, version: String, limits: ServerLimits, metrics: any MetricsFactory, audience: WatchAudience,
         currencyAudiences: [String: WatchAudience], logger: Logger, now: @escaping @Sendable () -> Duration) {
        self.status = status
        self.version = version
        self.limits = limits
        self.now = now
        self.metrics = SocketMetrics(factory: metrics)
        let budget = UserBudget(limits: limits, wording: .socket, logger: logger, now: now)
        self.budget = budget
        self.watchers = WatchHub(limits: limits, counters: self.metrics.watchCounters, now: now, audience: audience, currencyAudiences: currencyAudiences,
                                 countsChanged: { budget.countsChanged() })
    }

    var openConnections: Int { budget.openConnections }
}
