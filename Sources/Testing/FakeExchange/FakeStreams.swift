import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The WebSocket upgrade on the fake's port: which market a request is for, and whether the
/// behaviour lets it upgrade. A refused upgrade falls through to the HTTP handler, which answers it.
enum FakeStreamUpgrade {
    static func market(path: String) -> Market? {
        switch path {
        case "/stream": .binance
        case "/": .coinbase
        case "/v2": .kraken
        default: nil
        }
    }

    static func upgrader(exchange: @escaping @Sendable () -> FakeExchange?) -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 20,
            shouldUpgrade: { channel, head in
                let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
                guard let exchange = exchange(), let market = market(path: path) else { return channel.eventLoop.makeSucceededFuture(nil) }
                exchange.recordStreamUpgradeRequest(market)
                switch exchange.streamBehavior(for: market) {
                case .refuse: return channel.eventLoop.makeSucceededFuture(nil)
                // Never completed: the client waits until it gives up (the promise goes with the channel).
                case .hangUpgrade: return channel.eventLoop.makePromise(of: HTTPHeaders?.self).futureResult
                default: break
                }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
            },
            upgradePipelineHandler: { channel, head in
                let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
                guard let exchange = exchange(), let market = market(path: path) else { return channel.close() }
                let symbols = StreamPayloads.binanceSymbols(uri: head.uri)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FakeStreamHandler(market: market, exchange: exchange, binanceSymbols: symbols))
                }
            })
    }
}

/// One upgraded connection: pushes what the behaviour says, in the market's real shapes.
/// Binance starts at once; Coinbase and Kraken wait for a subscription. A connection pushing
/// trades follows later changes: new prices, heartbeats without prices (Coinbase and Kraken)
/// after a change to `heartbeatsOnly`, or silence for any other behaviour.
final class FakeStreamHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let market: Market
    private let exchange: FakeExchange
    private let behavior: StreamBehavior
    /// The combined stream's symbols (`BTCUSDT`, `BTCEUR`): each trade goes to each of them.
    private let binanceSymbols: [String]
    /// What Coinbase or Kraken was asked to stream (`BTC-EUR`, `BTC/EUR`): each trade goes to each of them.
    private var subscribed: [String] = []
    private var sent = 0
    private var started = false
    private var ticker: RepeatedTask?
    private var pinger: RepeatedTask?
    /// While a ping flood lasts: its end, and the pings written so far.
    private var floodUntil: NIODeadline?
    private var flooded = 0

    init(market: Market, exchange: FakeExchange, binanceSymbols: [String]) {
        self.market = market
        self.exchange = exchange
        self.behavior = exchange.streamBehavior(for: market)
        self.binanceSymbols = binanceSymbols
    }

    /// The pairs this connection carries, as its messages name them; nil for a subscription's
    /// default market (one pair).
    private var pairs: [String?] {
        switch market {
        case .binance: binanceSymbols
        default: subscribed.isEmpty ? [nil] : subscribed
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        exchange.streamOpened(market)
        guard market == .binance else { return }
        exchange.recordStreamPairs(market, binanceSymbols)
        start(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        exchange.streamClosed(market)
        ticker?.cancel()
        pinger?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var payload = frame.unmaskedData
            let text = payload.readString(length: payload.readableBytes) ?? ""
            guard text.contains("subscribe"), !started else { return }
            subscribed = StreamPayloads.subscribedSymbols(in: text)
            exchange.recordStreamPairs(market, subscribed)
            send(StreamPayloads.acknowledgement(market: market, symbols: subscribed), context: context)
            start(context: context)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            // Counted and otherwise ignored, as a server that only wants to see the client alive.
            exchange.recordStreamPong(market)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    private func start(context: ChannelHandlerContext) {
        started = true
        if let every = exchange.streamPingInterval(market) {
            // As Binance's server does every 20 s: a ping the client must answer with a pong.
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in
                let (handler, context) = bound.value
                handler.exchange.recordStreamPing(handler.market)
                context.writeAndFlush(handler.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(string: "ping"))), promise: nil)
            }
        }
        switch behavior {
        case .silent, .refuse, .hangUpgrade:
            return
        case .heartbeatsOnly:
            schedule(every: .milliseconds(100), context: context) { handler, context in
                handler.send(StreamPayloads.heartbeat(market: handler.market, sequence: handler.sent), context: context)
            }
        case .frames(let frames):
            for frame in frames { send(frame, context: context) }
        case .pingFlood(let price, let seconds, let readsPongs):
            pushTrade(price, context: context)
            if !readsPongs {
                // Never read, and a small receive buffer (no autotuning to 32 MB on loopback): a
                // client that answers every ping soon fills the kernel and then holds its pongs itself.
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
                context.channel.setOption(ChannelOptions.socketOption(.so_rcvbuf), value: 4096).whenComplete { _ in }
            }
            floodUntil = .now() + .seconds(Int64(seconds))
            flood(context: context)
        case .trades(_, let perSecond):
            pushTrades(perSecond: perSecond, context: context)
        case .clockTrades(let perSecond):
            schedule(every: .milliseconds(Int64(1000 / max(perSecond, 1))), context: context) { handler, context in
                handler.pushTrade(StreamPayloads.clockPrice(), context: context)
            }
        case .closeAfter(let count, let shutdownNotice):
            closeAfter(count, shutdownNotice: shutdownNotice, context: context)
        }
    }

    /// The trade prices the behaviour holds now, `perSecond` of them; when they stop, the
    /// connection lives on heartbeats or goes silent.
    private func pushTrades(perSecond: Int, context: ChannelHandlerContext) {
        // Above 1,000 a second, several trades per millisecond tick.
        let perTick = max(1, perSecond / 1000)
        schedule(every: .milliseconds(Int64(1000 * perTick / max(perSecond, 1))), context: context) { handler, context in
            let now = handler.exchange.streamBehavior(for: handler.market)
            guard case .trades(let prices, _) = now, !prices.isEmpty else {
                // Prices stop; the connection stays alive on heartbeats, or goes silent.
                if now == .heartbeatsOnly, handler.market != .binance {
                    handler.send(StreamPayloads.heartbeat(market: handler.market, sequence: handler.sent), context: context)
                } else {
                    handler.ticker?.cancel()
                }
                return
            }
            for _ in 0..<perTick { handler.pushTrade(prices[handler.sent % prices.count], context: context) }
        }
    }

    /// `count` trades, then a clean close (after Binance's notice and ten more, with `shutdownNotice`).
    private func closeAfter(_ count: Int, shutdownNotice: Bool, context: ChannelHandlerContext) {
        // With a notice, Binance's `serverShutdown` comes first and trades go on for a second
        // (ten more) before the close, time for a client to open its replacement.
        let noticeGiven = shutdownNotice && market == .binance
        schedule(every: .milliseconds(100), context: context) { handler, context in
            if noticeGiven && handler.sent == count { handler.send(StreamPayloads.serverShutdown(), context: context) }
            guard handler.sent < count + (noticeGiven ? 10 : 0) else {
                handler.ticker?.cancel()
                let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: context.channel.allocator.buffer(bytes: [0x03, 0xE8]))
                let channel = context.channel
                context.writeAndFlush(handler.wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            handler.pushTrade("114459.80", context: context)
        }
    }

    /// Writes pings while the socket takes them, until `floodUntil`: 64 KiB of pings a write,
    /// as raw frame bytes written past the frame encoder, so a debug build of the fake outruns
    /// any client.
    /// The count is recorded when the flood ends.
    private func flood(context: ChannelHandlerContext) {
        guard let until = floodUntil else { return }
        guard NIODeadline.now() < until, context.channel.isActive,
              let raw = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self) else {
            floodUntil = nil
            exchange.recordStreamPing(market, count: flooded)
            exchange.recordPingFloodEnded(market)
            return
        }
        let chunk = Self.pingChunk
        var written = 0
        while context.channel.isWritable, written < 16 {
            raw.write(NIOAny(chunk), promise: nil)
            written += 1
        }
        flooded += written * chunk.readableBytes / Self.pingFrame.count
        raw.flush()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        // Writable: go on at once; otherwise a little later (writability may return at any time).
        let delay: TimeAmount = context.channel.isWritable ? .zero : .milliseconds(1)
        context.eventLoop.scheduleTask(in: delay) { bound.value.0.flood(context: bound.value.1) }
    }

    /// An unmasked ping frame with no payload.
    private static let pingFrame: [UInt8] = [0x89, 0x00]
    private static let pingChunk: ByteBuffer = {
        var buffer = ByteBufferAllocator().buffer(capacity: 65_536)
        for _ in 0..<(65_536 / pingFrame.count) { buffer.writeBytes(pingFrame) }
        return buffer
    }()

    private func schedule(every interval: TimeAmount, context: ChannelHandlerContext, _ body: @escaping (FakeStreamHandler, ChannelHandlerContext) -> Void) {
        let bound = NIOLoopBound((self, context, body), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { _ in
            let (handler, context, body) = bound.value
            body(handler, context)
        }
    }

    private func pushTrade(_ price: String, context: ChannelHandlerContext) {
        sent += 1
        let perSecond: Int
        switch behavior {
        case .trades(_, let rate), .clockTrades(let rate): perSecond = max(rate, 1)
        default: perSecond = 10
        }
        for pair in pairs {
            exchange.recordStreamTrade(market)
            send(StreamPayloads.trade(market: market, price: price, sequence: sent, symbol: pair), context: context)
        }
        // Once a second: Binance's mini ticker of each symbol, the others' heartbeat.
        guard sent % perSecond == 0 else { return }
        for pair in market == .binance ? pairs : [nil] {
            send(StreamPayloads.everySecond(market: market, price: price, sequence: sent, symbol: pair), context: context)
        }
    }

    private func send(_ text: String, context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
    }
}
