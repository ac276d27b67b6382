import NIOCore
import NIOPosix
import PriceCore

/// One local connection to a venue's relay (from btcpriced's own HTTP client or stream): it
/// answers the client's SOCKS5 greeting itself, opens the venue's connection to the real proxy
/// with the venue's credentials (`UpstreamGreeting`), and then joins the two. The client's
/// CONNECT request and the proxy's reply pass through untouched, so the proxy alone resolves
/// the venue's name, as `socks5h` promises.
final class CircuitRelayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where to go and as whom, asked when the client's greeting arrives.
    struct Upstream {
        let host: String
        let port: Int
        let user: String
        let password: String
    }

    private let upstream: () -> Upstream?
    /// Told when the proxy itself failed (it refused the connection, or never finished its
    /// greeting): the client only sees a SOCKS reply, which cannot tell a failing proxy from a
    /// failing venue.
    private let proxyFailed: (ProxyTrouble.Kind) -> Void
    /// The budget for the proxy's connection and its greeting together. The client's own
    /// connect budget is the same, so the relay gives up a little sooner and its answer (with
    /// the real reason) comes first.
    private let connectTimeout: TimeAmount
    /// What the client sent after its greeting, before the proxy is ready: its CONNECT request.
    private var pending = ByteBuffer()
    private var greeted = false

    init(connectTimeout: TimeAmount, upstream: @escaping () -> Upstream?, proxyFailed: @escaping (ProxyTrouble.Kind) -> Void = { _ in }) {
        self.connectTimeout = connectTimeout
        self.upstream = upstream
        self.proxyFailed = proxyFailed
    }

    /// How long the relay waits for the proxy: its connect budget less a margin (at least half of it).
    var upstreamBudget: TimeAmount { .nanoseconds(max(connectTimeout.nanoseconds / 2, connectTimeout.nanoseconds - 2_000_000_000)) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        // A greeting and a CONNECT request are a few hundred bytes at most.
        guard pending.readableBytes <= 1024 else { return context.close(promise: nil) }
        guard !greeted else { return }
        // Version 5, N methods, the N methods: btcpriced's clients offer "no authentication".
        guard let header = pending.getBytes(at: pending.readerIndex, length: min(2, pending.readableBytes)) else { return }
        if header.first.map({ $0 != 5 }) == true { return context.close(promise: nil) }
        guard header.count == 2, pending.readableBytes >= 2 + Int(header[1]) else { return }
        pending.moveReaderIndex(forwardBy: 2 + Int(header[1]))
        greeted = true
        guard let upstream = upstream() else { return context.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: [5, 0x00])), promise: nil)
        connect(upstream, context: context)
    }

    private func connect(_ upstream: Upstream, context: ChannelHandlerContext) {
        let client = context.channel, loop = context.eventLoop, budget = upstreamBudget
        let ready = loop.makePromise(of: Void.self)
        let greeting = NIOLoopBound(UpstreamGreeting(user: upstream.user, password: upstream.password, done: ready), eventLoop: loop)
        // A proxy that takes the connection and never answers its greeting (a hung or
        // half-started Tor) is a failure within the same budget as one that does not connect.
        let deadline = loop.scheduleTask(in: budget) { ready.fail(UpstreamGreeting.Failure.noAnswer) }
        ready.futureResult.whenComplete { _ in deadline.cancel() }
        ClientBootstrap(group: loop)
            .connectTimeout(budget)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(greeting.value) }
            }
            .connect(host: upstream.host, port: upstream.port)
            .assumeIsolated()
            .whenComplete { connected in
                guard case .success(let proxy) = connected else {
                    // The proxy itself refused: the client's SOCKS error says so (RFC 1928 §6).
                    let refused = "\(connected)".lowercased().contains("refused")
                    self.proxyFailed(refused ? .refused : .noConnection(within: .nanoseconds(self.connectTimeout.nanoseconds)))
                    return Self.fail(client, reply: refused ? 0x05 : 0x01)
                }
                ready.futureResult.assumeIsolated().whenComplete { greeted in
                    guard case .success = greeted else {
                        // Named with the connect budget the operator set, which the relay keeps within.
                        if case .failure(UpstreamGreeting.Failure.noAnswer) = greeted { self.proxyFailed(.noHandshake(within: .nanoseconds(self.connectTimeout.nanoseconds))) }
                        proxy.close(promise: nil)
                        return Self.fail(client, reply: 0x01)
                    }
                    self.join(client, to: proxy, greeting: greeting.value, context: context)
                }
            }
        client.closeFuture.whenComplete { _ in ready.fail(UpstreamGreeting.Failure.closed) }
    }

    /// Answers the client's CONNECT with a failure (`reply`: 0x01 general, 0x05 refused) and
    /// closes, so its SOCKS client reports a proxy error rather than a closed connection.
    private static func fail(_ client: any Channel, reply: UInt8) {
        let answer = client.allocator.buffer(bytes: [5, reply, 0, 1, 0, 0, 0, 0, 0, 0])
        client.writeAndFlush(answer).whenComplete { _ in client.close(promise: nil) }
    }

    /// The proxy is ready: the client's CONNECT goes to it, and from here bytes just flow.
    private func join(_ client: any Channel, to proxy: any Channel, greeting: UpstreamGreeting, context: ChannelHandlerContext) {
        guard client.isActive else { return proxy.close(promise: nil) }
        let (clientSide, proxySide) = GlueHandler.matchedPair()
        do {
            proxy.pipeline.syncOperations.removeHandler(greeting, promise: nil)
            try proxy.pipeline.syncOperations.addHandler(proxySide)
            if pending.readableBytes > 0 { proxy.writeAndFlush(pending, promise: nil) }
            pending = ByteBuffer()
            try client.pipeline.syncOperations.addHandler(clientSide)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            client.close(promise: nil)
            proxy.close(promise: nil)
        }
        client.closeFuture.whenComplete { _ in proxy.close(promise: nil) }
    }
}
