import NIOConcurrencyHelpers
import NIOCore
import TestClocks
import NIOHTTP1
import NIOPosix

/// One price request as the fake received it.
public struct RecordedRequest: Sendable {
    public let market: Market
    public let uri: String
    /// Header names in lower case.
    public let headers: [String: String]
    public let receivedAt: ContinuousClock.Instant
    /// The wall-clock second the answer's `Date` names, unless the behaviour dates it otherwise.
    public let dated: Int64
}

/// A real HTTP server on 127.0.0.1 that serves every venue's price path and misbehaves on
/// demand. Used in unit, integration and end-to-end tests, and by scripts through its control
/// endpoints: `POST /_control/binance` with a `Behavior` command as the body, `POST
/// /_control/binance-weight` with a number for `X-MBX-USED-WEIGHT-1M`, `POST
/// /_control/stream/binance` with a `StreamBehavior` command, `GET /_control/stats`.
public final class FakeExchange: Sendable {
    struct State {
        var behaviors: [Market: Behavior] = [
            .binance: .price(Behavior.defaultPrice), .coinbase: .price("114460.215"), .kraken: .price("114459.90000"),
            .bitstamp: .price("114461"), .cryptocompare: .price("114460.1"), .mempool: .price("114462"),
            .coinbaseRates: .price("2512345.67"),
        ]
        /// Venues a test has told how to answer; the others quote `marketPrice` once a test has
        /// set any venue's price, as real venues agree (the daemon's price check holds a venue
        /// 25 % away from the rest, so a test's lone price must not meet stale defaults).
        var explicitlySet: Set<Market> = []
        var marketPrice: String?
        var requests: [RecordedRequest] = []
        /// What Binance reports as the weight used this minute; nil counts 2 per request.
        var binanceWeight: Int?
        /// How far the venues' clocks (their `Date`) are behind the host's: a host clock that is
        /// ahead, as the daemon sees it.
        var clockBehind = 0
        var streamBehaviors: [Market: StreamBehavior] = [:]
        var streamConnections: [Market: Int] = [:]
        var openStreams: [Market: Int] = [:]
        var streamRefusals: [Market: Int] = [:]
        var streamUpgradeRequests: [Market: Int] = [:]
        var streamPairs: [Market: [[String]]] = [:]
        var streamPingIntervals: [Market: TimeAmount] = [:]
        var streamPings: [Market: Int] = [:]
        var streamTrades: [Market: Int] = [:]
        var streamPongs: [Market: Int] = [:]
        var pingFloodsEnded: [Market: Int] = [:]
        var mostOpenStreams: [Market: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// Counts the changes tests may wait on; each one re-checks their conditions.
    private let changes = Awaitable(0)
    private let channel: any Channel
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    public static func start(port: Int = 0, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> FakeExchange {
        let box = NIOLockedValueBox<FakeExchange?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let exchange: @Sendable () -> FakeExchange? = { box.withLockedValue { $0 } }
                return channel.eventLoop.makeCompletedFuture {
                    let http = FakeExchangeHandler(exchange: exchange)
                    let bound = NIOLoopBound(http, eventLoop: channel.eventLoop)
                    let upgrade: NIOHTTPServerUpgradeSendableConfiguration = (
                        upgraders: [FakeStreamUpgrade.upgrader(exchange: exchange)],
                        completionHandler: { context in context.pipeline.syncOperations.removeHandler(bound.value, promise: nil) })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: upgrade)
                    try channel.pipeline.syncOperations.addHandler(http)
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let exchange = FakeExchange(channel: channel, port: channel.localAddress?.port ?? port)
        box.withLockedValue { $0 = exchange }
        return exchange
    }

    public func set(_ market: Market, _ behavior: Behavior) {
        state.withLockedValue { state in
            state.behaviors[market] = behavior
            state.explicitlySet.insert(market)
            if case .price(let price) = behavior { state.marketPrice = price }
        }
    }

    /// Every venue's price answer at once, as real venues agree: a test that moves one venue far
    /// from the others' defaults meets the daemon's price check whenever a slow answer hands a
    /// cycle to the next venue.
    public func setEveryVenue(price: String) {
        state.withLockedValue { state in
            for market in Market.allCases where market != .mempool {
                state.behaviors[market] = .price(price)
                state.explicitlySet.insert(market)
            }
            state.marketPrice = price
        }
    }

    public func behavior(for market: Market) -> Behavior {
        state.withLockedValue { state in
            if !state.explicitlySet.contains(market), let price = state.marketPrice { return .price(price) }
            return state.behaviors[market] ?? .price(Behavior.defaultPrice)
        }
    }

    public func requestCount(_ market: Market) -> Int {
        state.withLockedValue { $0.requests.reduce(0) { $0 + ($1.market == market ? 1 : 0) } }
    }

    public func requests(_ market: Market) -> [RecordedRequest] {
        state.withLockedValue { $0.requests.filter { $0.market == market } }
    }

    /// How a market's WebSocket endpoint behaves; trades at 5 a second unless set.
    public func setStream(_ market: Market, _ behavior: StreamBehavior) {
        state.withLockedValue { $0.streamBehaviors[market] = behavior }
    }

    public func streamBehavior(for market: Market) -> StreamBehavior {
        state.withLockedValue { $0.streamBehaviors[market] ?? .defaultTrades }
    }

    /// Upgraded WebSocket connections so far.
    public func streamConnectionCount(_ market: Market) -> Int {
        state.withLockedValue { $0.streamConnections[market] ?? 0 }
    }

    /// WebSocket upgrades refused so far.
    public func streamRefusalCount(_ market: Market) -> Int {
        state.withLockedValue { $0.streamRefusals[market] ?? 0 }
    }

    /// WebSocket upgrade requests received so far, answered or not.
    public func streamUpgradeRequestCount(_ market: Market) -> Int {
        state.withLockedValue { $0.streamUpgradeRequests[market] ?? 0 }
    }

    func recordStreamUpgradeRequest(_ market: Market) {
        mutate { $0.streamUpgradeRequests[market, default: 0] += 1 }
    }

    /// WebSocket connections open now.
    public func openStreamCount(_ market: Market) -> Int {
        state.withLockedValue { $0.openStreams[market] ?? 0 }
    }

    /// The most WebSocket connections open at once so far (2 while a client overlaps a rotation).
    public func mostOpenStreams(_ market: Market) -> Int {
        state.withLockedValue { $0.mostOpenStreams[market] ?? 0 }
    }

    /// Connections opened from now on ping the client this often (nil: never).
    public func setStreamPings(_ market: Market, every interval: TimeAmount?) {
        state.withLockedValue { $0.streamPingIntervals[market] = interval }
    }

    func streamPingInterval(_ market: Market) -> TimeAmount? {
        state.withLockedValue { $0.streamPingIntervals[market] }
    }

    /// Pings sent to stream clients, and pongs they answered with.
    public func streamPings(_ market: Market) -> (sent: Int, answered: Int) {
        state.withLockedValue { ($0.streamPings[market] ?? 0, $0.streamPongs[market] ?? 0) }
    }

    /// Trades sent to stream clients so far, on every connection.
    public func streamTradesSent(_ market: Market) -> Int {
        state.withLockedValue { $0.streamTrades[market] ?? 0 }
    }

    func recordStreamTrade(_ market: Market) {
        mutate { $0.streamTrades[market, default: 0] += 1 }
    }

    func recordStreamPing(_ market: Market, count: Int = 1) {
        mutate { $0.streamPings[market, default: 0] += count }
    }

    /// Ping floods (`StreamBehavior.pingFlood`) that have run their time; their pings are
    /// counted in `streamPings` when they end.
    public func pingFloodsEnded(_ market: Market) -> Int {
        state.withLockedValue { $0.pingFloodsEnded[market] ?? 0 }
    }

    func recordPingFloodEnded(_ market: Market) {
        mutate { $0.pingFloodsEnded[market, default: 0] += 1 }
    }

    func recordStreamPong(_ market: Market) {
        mutate { $0.streamPongs[market, default: 0] += 1 }
    }

    func recordStreamRefusal(_ market: Market) {
        mutate { $0.streamRefusals[market, default: 0] += 1 }
    }

    func streamOpened(_ market: Market) {
        mutate { state in
            state.streamConnections[market, default: 0] += 1
            state.openStreams[market, default: 0] += 1
            state.mostOpenStreams[market] = max(state.mostOpenStreams[market] ?? 0, state.openStreams[market]!)
        }
    }

    /// The pairs each connection carried, in the order they subscribed (Binance's by its path).
    public func streamPairs(_ market: Market) -> [[String]] {
        state.withLockedValue { $0.streamPairs[market] ?? [] }
    }

    func recordStreamPairs(_ market: Market, _ pairs: [String]) {
        mutate { $0.streamPairs[market, default: []].append(pairs) }
    }

    func streamClosed(_ market: Market) {
        mutate { $0.openStreams[market, default: 1] -= 1 }
    }

    /// Sets the venues' `Date` `seconds` behind the host clock (0: right).
    public func setClock(behindBySeconds seconds: Int) {
        state.withLockedValue { $0.clockBehind = seconds }
    }

    var clockBehind: Int { state.withLockedValue { $0.clockBehind } }

    public func setBinanceWeight(_ weight: Int?) {
        state.withLockedValue { $0.binanceWeight = weight }
    }

    /// Records the request; returns the weight Binance would report after it.
    func record(_ request: RecordedRequest) -> Int {
        mutate { state in
            state.requests.append(request)
            if let weight = state.binanceWeight { return weight }
            let minuteAgo = request.receivedAt - .seconds(60)
            return 2 * state.requests.reduce(0) { $0 + ($1.market == .binance && $1.receivedAt > minuteAgo ? 1 : 0) }
        }
    }

    /// Applies a recorded change and wakes the tests waiting on one. The conditions are checked
    /// after the state's lock is let go, as they read the state themselves.
    private func mutate<T>(_ body: (inout State) -> T) -> T {
        let result = state.withLockedValue(body)
        changes.update { $0 += 1 }
        return result
    }

    /// Returns once `condition` holds of this exchange: at once if it does now, else after the
    /// request, stream, refusal or ping that makes it hold. A test that waits carries a time
    /// limit; its cancellation ends the wait.
    public func until(_ condition: @escaping @Sendable (FakeExchange) -> Bool) async {
        await changes.until { [self] _ in condition(self) }
    }

    public func shutdown() async {
        try? await channel.close()
    }
}

final class FakeExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
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
        if let market = FakeStreamUpgrade.market(path: path), case .refuse(let status) = exchange.streamBehavior(for: market) {
            exchange.recordStreamRefusal(market)
            write(CannedResponse(status: status, body: "{\"code\":0,\"msg\":\"Service unavailable from a restricted location.\"}"), context: context)
            return
        }
        guard let market = Market.at(path: path) else {
            write(CannedResponse(status: 404, body: "{\"error\":\"no such path\"}"), context: context)
            return
        }
        var headers: [String: String] = [:]
        for header in head.headers { headers[header.name.lowercased()] = header.value }
        let dated = WallClock.seconds()
        let weight = exchange.record(RecordedRequest(market: market, uri: head.uri, headers: headers, receivedAt: .now, dated: dated))
        let behavior = exchange.behavior(for: market)
        let symbol = query["symbol"] ?? "BTCUSDT"
        var response = Payloads.response(for: behavior, market: market, requestedSymbol: symbol,
                                         currency: Market.currency(path: path, query: query), path: path, query: query)
        if market == .binance { response.headers.append(("X-MBX-USED-WEIGHT-1M", String(weight))) }
        if market == .cryptocompare { response.headers.append(("Cache-Control", "max-age=10")) }
        if response.date == nil { response.date = WallClock.httpDate(seconds: dated - Int64(exchange.clockBehind)) }
        switch behavior {
        case .hang:
            return
        case .slow(let milliseconds, _):
            let loopBound = NIOLoopBound((self, context, response), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                let (handler, context, response) = loopBound.value
                handler.write(response, context: context)
            }
        default:
            write(response, context: context)
        }
    }

    private func control(_ target: String, exchange: FakeExchange, context: ChannelHandlerContext) {
        if target == "binance-weight" {
            let text = body.trimmingCharacters()
            exchange.setBinanceWeight(text == "auto" ? nil : Int(text))
            write(CannedResponse(status: 200, body: "{\"ok\":true}"), context: context)
            return
        }
        if target == "log" {
            // Every request so far, one a line: milliseconds since the first, the venue, the path.
            let requests = Market.allCases.flatMap { exchange.requests($0) }.sorted { $0.receivedAt < $1.receivedAt }
            let start = requests.first?.receivedAt
            let lines = requests.map { request in
                let since = (start ?? request.receivedAt).duration(to: request.receivedAt).components
                return "\(since.seconds * 1000 + since.attoseconds / 1_000_000_000_000_000) \(request.market.rawValue) \(request.uri)\n"
            }
            write(CannedResponse(status: 200, body: lines.joined()), context: context)
            return
        }
        if target == "stats" {
            // Requests by market, and each market's streamed trade messages (one per pair a connection carries).
            let counts = Market.allCases.map { "\"\($0.rawValue)\":\(exchange.requestCount($0)),\"\($0.rawValue)_stream_trades\":\(exchange.streamTradesSent($0))" }
                .joined(separator: ",")
            write(CannedResponse(status: 200, body: "{\(counts)}"), context: context)
            return
        }
        if target.hasPrefix("stream/"), let market = Market(rawValue: String(target.dropFirst("stream/".count))),
           let behavior = StreamBehavior(command: body.trimmingCharacters()) {
            exchange.setStream(market, behavior)
            write(CannedResponse(status: 200, body: "{\"ok\":true}"), context: context)
            return
        }
        guard let market = Market(rawValue: target), let behavior = Behavior(command: body.trimmingCharacters()) else {
            write(CannedResponse(status: 400, body: "{\"error\":\"usage: POST /_control/{\(Market.allCases.map(\.rawValue).joined(separator: "|"))} with a behaviour command\"}"), context: context)
            return
        }
        exchange.set(market, behavior)
        write(CannedResponse(status: 200, body: "{\"ok\":true}"), context: context)
    }

    private func write(_ response: CannedResponse, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.add(name: "Date", value: response.date ?? WallClock.httpDate(secondsAgo: 0))
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
