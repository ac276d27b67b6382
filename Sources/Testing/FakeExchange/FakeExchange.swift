import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP server on 127.0.0.1 that serves Binance's and CryptoCompare's price paths and
/// misbehaves on demand. Used in unit, integration and end-to-end tests, and by scripts through
/// its control endpoint: `POST /_control/binance` with a `Behavior` command as the body.
public final class FakeExchange: Sendable {
    struct State {
        var behaviors: [Market: Behavior] = [.binance: .price(Behavior.defaultPrice), .cryptocompare: .price("114460.1")]
        var requests: [Market: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let channel: any Channel
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(channel: any Channel, port: Int, state: NIOLockedValueBox<State>?) {
        self.channel = channel
        self.port = port
    }

    public static func start(port: Int = 0, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> FakeExchange {
        let box = NIOLockedValueBox<FakeExchange?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FakeExchangeHandler(exchange: { box.withLockedValue { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let exchange = FakeExchange(channel: channel, port: channel.localAddress?.port ?? port, state: nil)
        box.withLockedValue { $0 = exchange }
        return exchange
    }

    public func set(_ market: Market, _ behavior: Behavior) {
        state.withLockedValue { $0.behaviors[market] = behavior }
    }

    public func behavior(for market: Market) -> Behavior {
        state.withLockedValue { $0.behaviors[market] ?? .price(Behavior.defaultPrice) }
    }

    public func requestCount(_ market: Market) -> Int {
        state.withLockedValue { $0.requests[market] ?? 0 }
    }

    func countRequest(_ market: Market) {
        state.withLockedValue { $0.requests[market, default: 0] += 1 }
    }

    public func shutdown() async {
        try? await channel.close()
    }
}

final class FakeExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exchange: @Sendable () -> FakeExchange?
    private var head: HTTPRequestHead?
    private var body = ""

    init(exchange: @escaping @Sendable () -> FakeExchange?) {
        self.exchange = exchange
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = ""
        case .body(var buffer):
            body += buffer.readString(length: buffer.readableBytes) ?? ""
        case .end:
            guard let head, let exchange = exchange() else { return }
            route(head, exchange: exchange, context: context)
        }
    }

    private func route(_ head: HTTPRequestHead, exchange: FakeExchange, context: ChannelHandlerContext) {
        let (path, query) = split(head.uri)
        if path.hasPrefix("/_control/") {
            control(String(path.dropFirst("/_control/".count)), exchange: exchange, context: context)
            return
        }
        let market: Market
        switch path {
        case "/api/v3/ticker/price": market = .binance
        case "/data/price": market = .cryptocompare
        default:
            write(CannedResponse(status: 404, body: "{\"error\":\"no such path\"}"), context: context)
            return
        }
        exchange.countRequest(market)
        let behavior = exchange.behavior(for: market)
        let symbol = query["symbol"] ?? "BTCUSDT"
        let response = Payloads.response(for: behavior, market: market, requestedSymbol: symbol)
        switch behavior {
        case .hang:
            return
        case .slow(let milliseconds, _):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                let (handler, context) = loopBound.value
                handler.write(response, context: context)
            }
        default:
            write(response, context: context)
        }
    }

    private func control(_ target: String, exchange: FakeExchange, context: ChannelHandlerContext) {
        if target == "stats" {
            let counts = Market.allCases.map { "\"\($0.rawValue)\":\(exchange.requestCount($0))" }.joined(separator: ",")
            write(CannedResponse(status: 200, body: "{\(counts)}"), context: context)
            return
        }
        guard let market = Market(rawValue: target), let behavior = Behavior(command: body.trimmingCharacters()) else {
            write(CannedResponse(status: 400, body: "{\"error\":\"usage: POST /_control/{binance|cryptocompare} with a behaviour command\"}"), context: context)
            return
        }
        exchange.set(market, behavior)
        write(CannedResponse(status: 200, body: "{\"ok\":true}"), context: context)
    }

    private func write(_ response: CannedResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.add(name: "Content-Length", value: String(response.body.utf8.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: response.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func split(_ uri: String) -> (String, [String: String]) {
        let parts = uri.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { query[String(kv[0])] = String(kv[1]) }
            }
        }
        return (parts.first.map(String.init) ?? uri, query)
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
