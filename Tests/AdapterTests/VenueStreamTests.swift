import Exchanges
import Glibc
import FakeExchange
import NIOPosix
import PriceCore
import Streams
import Synchronization
import Testing
import TestClocks

/// Each venue's stream over a real WebSocket connection to the fake exchange on 127.0.0.1.
@Suite("Venue streams over WebSocket against the fake exchange")
struct VenueStreamTests {
    typealias Ending = StreamLink<ManualClock.Instant>.Ending

    /// What one connection delivered before it ended (or was cancelled after `until` held).
    final class Received: Sendable {
        let opened = Mutex(false)
        let events = Mutex<[StreamEvent]>([])
        var trades: [String] {
            events.withLock { $0.compactMap { if case .trade(let quote, _) = $0 { quote.price.description } else { nil } } }
        }
    }

    func connect(_ venue: Venue, to exchange: FakeExchange, path: String = "", currencies: [String]? = nil,
                 until done: @escaping @Sendable (Received) -> Bool = { _ in false },
                 orOnceTheExchange held: (@Sendable (FakeExchange) -> Bool)? = nil) async -> (Ending, Received) {
        let received = Received()
        let stream = VenueStream(venue: venue, url: "ws://127.0.0.1:\(exchange.port)\(path)", currencies: currencies)!
        // Checked as each delivery arrives, not polled: `done` ends the connection at once.
        let (met, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            await stream.run(opened: { received.opened.withLock { $0 = true } },
                             received: { events in
                                 received.events.withLock { $0 += events }
                                 if done(received) { signal.yield() }
                             }) as Ending
        }
        let watcher = Task {
            for await _ in met { task.cancel(); break }
        }
        // The fake's own record (a request it holds) is awaited as it changes, not polled.
        let exchangeWatcher = held.map { condition in Task { await exchange.until(condition); task.cancel() } }
        let ending = await task.value
        signal.finish()
        await watcher.value
        exchangeWatcher?.cancel()
        return (ending, received)
    }

    @Test(arguments: [(Venue.binance, ""), (.coinbase, "/"), (.kraken, "/v2")])
    func tradesArriveWithTheirExactPrices(venue: Venue, path: String) async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(Market(rawValue: venue.name.rawValue)!, .trades(prices: ["114459.80", "114460.25"], perSecond: 50))
        let (ending, received) = await connect(venue, to: exchange, path: path) { $0.trades.count >= 3 }
        #expect(ending == .closed("cancelled"))
        #expect(received.opened.withLock { $0 })
        #expect(Array(received.trades.prefix(3)) == ["114459.8", "114460.25", "114459.8"])
        #expect(exchange.streamConnectionCount(Market(rawValue: venue.name.rawValue)!) == 1)
        await exchange.shutdown()
    }

    /// Several currencies on one connection: the subscription (Binance's path) names every pair,
    /// and each pair's trades arrive named by their own symbol.
    @Test(arguments: [(Venue.binance, "", ["USD", "EUR"], ["BTCUSDT", "BTCEUR"]), (.coinbase, "/", ["USD", "EUR", "GBP"], ["BTC-USD", "BTC-EUR", "BTC-GBP"]),
                      (.kraken, "/v2", ["USD", "EUR", "JPY"], ["BTC/USD", "BTC/EUR", "BTC/JPY"])])
    func oneConnectionCarriesEveryPair(venue: Venue, path: String, currencies: [String], symbols: [String]) async throws {
        let exchange = try await FakeExchange.start()
        let market = Market(rawValue: venue.name.rawValue)!
        exchange.setStream(market, .trades(prices: ["114459.80"], perSecond: 50))
        let (_, received) = await connect(venue, to: exchange, path: path, currencies: currencies) { received in
            Set(received.events.withLock { $0.compactMap(\.quote?.symbol) }).count == symbols.count
        }
        let heard = Set(received.events.withLock { $0.compactMap(\.quote?.symbol) })
        #expect(heard == Set(symbols), "trades heard: \(heard)")
        #expect(exchange.streamPairs(market) == [symbols], "one connection, subscribed to every pair: \(exchange.streamPairs(market))")
        await exchange.shutdown()
    }

    /// The daemon reads the stream on the loop that writes to its watchers, so a trade reaches
    /// them without waking another thread.
    @Test func everyMessageIsHandledOnTheStreamsOwnEventLoop() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114459.80", "114460.25"], perSecond: 50))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let stream = VenueStream(venue: .binance, url: "ws://127.0.0.1:\(exchange.port)", eventLoop: loop)!
        let calls = Mutex((onLoop: 0, elsewhere: 0))
        let (fifth, signal) = AsyncStream<Void>.makeStream()
        let record: @Sendable () -> Void = {
            let onLoop = loop.inEventLoop
            let total = calls.withLock { onLoop ? ($0.onLoop += 1) : ($0.elsewhere += 1); return $0.onLoop + $0.elsewhere }
            if total == 5 { signal.yield() }
        }
        let task = Task {
            await stream.run(opened: record, received: { _ in record() }) as Ending
        }
        for await _ in fifth { break }
        task.cancel()
        _ = await task.value
        let seen = calls.withLock { $0 }
        #expect(seen.elsewhere == 0)
        #expect(seen.onLoop >= 5)
        await exchange.shutdown()
        try await group.shutdownGracefully()
    }

    @Test func aRefusedUpgradeIsARefusal() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .refuse(451))
        let (ending, received) = await connect(.binance, to: exchange)
        #expect(ending == .refused(status: 451), "the venue's own status, now that the client owns its upgrade")
        #expect(!received.opened.withLock { $0 })
        await exchange.shutdown()
    }

    @Test func aShutdownNoticeArrivesBeforeTheCleanClose() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .closeAfter(trades: 2, shutdownNotice: true))
        let (ending, received) = await connect(.binance, to: exchange)
        #expect(ending == .closed("closed by binance (normalClosure)"))
        let events = received.events.withLock { $0 }
        let notice = try #require(events.firstIndex(of: .closingSoon), "serverShutdown arrives: \(events)")
        func trades(_ slice: ArraySlice<StreamEvent>) -> Int { slice.filter { if case .trade = $0 { true } else { false } }.count }
        #expect(trades(events[..<notice]) == 2)
        #expect(trades(events[notice...]) >= 10, "after the notice, a second of trades (and a mini ticker) before the close")
        await exchange.shutdown()
    }

    @Test func anOversizedFrameEndsTheConnectionWithoutBeingRead() async throws {
        let exchange = try await FakeExchange.start()
        let huge = #"{"stream":"btcusdt@trade","data":{"e":"trade","s":"BTCUSDT","p":"1"# + String(repeating: "0", count: 100_000) + #""}}"#
        exchange.setStream(.binance, .frames([huge]))
        let (ending, received) = await connect(.binance, to: exchange)
        #expect(received.trades.isEmpty, "a 100 KB frame is refused, not parsed")
        #expect(ending == .closed("closed by btcpriced: binance sent a message over 64 KiB (messageTooLarge)"),
                "btcpriced closed it, and says so: \(ending)")
        await exchange.shutdown()
    }

    @Test func theServersPingsAreAnsweredWithPongs() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114459.80"], perSecond: 10))
        exchange.setStreamPings(.binance, every: .milliseconds(100))
        // Until five pongs came back, or fifty pings (five seconds) went unanswered enough to fail.
        let (_, received) = await connect(.binance, to: exchange) { _ in
            let pings = exchange.streamPings(.binance)
            return pings.answered >= 5 || pings.sent >= 50
        }
        #expect(received.trades.count >= 1)
        let pings = exchange.streamPings(.binance)
        #expect(pings.answered >= 5, "Binance drops a client that does not pong: \(pings)")
        await exchange.shutdown()
    }

    @Test(arguments: ["not json", #"{"channel":"ticker","type":"update","data":[{"symbol":"ETH/USD","last":1,"high":1,"low":1}]}"#])
    func aMessageThatIsNotATickerEndsTheConnectionWithTheReason(frame: String) async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.kraken, .frames([frame]))
        let (ending, _) = await connect(.kraken, to: exchange, path: "/v2")
        guard case .failed(let reason) = ending else { Issue.record("ended as \(ending)"); return }
        #expect(reason.hasPrefix("kraken sent a message that is not a ticker: "), "\(reason)")
        await exchange.shutdown()
    }

    /// Client sockets to `port` that this process has not closed (ESTABLISHED or CLOSE_WAIT),
    /// from the kernel's table: only this test talks to its fake's port.
    static func openClientSockets(to port: Int) -> Int {
        let hex = String(port, radix: 16, uppercase: true)
        let hexPort = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return ["/proc/net/tcp", "/proc/net/tcp6"].reduce(0) { count, table in
            let rows = ((try? String(contentsOfFile: table, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
            return count + rows.filter { row in
                let fields = row.split(separator: " ")
                return fields.count > 3 && fields[2].hasSuffix(hexPort) && (fields[3] == "01" || fields[3] == "08")
            }.count
        }
    }

    /// An upgrade never answered (given up, as the stall watch does), answered with 200 instead
    /// of 101, or refused: the socket is closed at once, every time.
    @Test(arguments: [StreamBehavior.hangUpgrade, .refuse(200), .refuse(451)])
    func twentyAbandonedOrDeclinedUpgradesLeaveNoSocketOpen(behavior: StreamBehavior) async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, behavior)
        let port = exchange.port
        for attempt in 1...20 {
            // A hung upgrade is given up once the fake holds its request; the others end by themselves.
            let hangs = behavior == .hangUpgrade
            let heldRequest: @Sendable (FakeExchange) -> Bool = { $0.streamUpgradeRequestCount(.binance) >= attempt }
            let (ending, received) = await connect(.binance, to: exchange, orOnceTheExchange: hangs ? heldRequest : nil)
            #expect(!received.opened.withLock { $0 }, "attempt \(attempt) never opened")
            if case .refuse(let status) = behavior { #expect(ending == .refused(status: status), "attempt \(attempt): \(ending)") }
        }
        // Each attempt returned only once its channel had closed: nothing to wait for.
        let open = Self.openClientSockets(to: port)
        #expect(open == 0, "client sockets still open after 20 attempts: \(open)")
        await exchange.shutdown()
    }

    /// A port held bound and never listened on: the connection is refused. (A port freed by a
    /// server that stopped was once taken by another test's fake exchange before the connect.)
    @Test func nothingListeningIsAFailureNotARefusal() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "cannot bind a loopback port: errno \(errno)")
        let stream = VenueStream(venue: .kraken, url: "ws://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/v2")!
        let ending: Ending = await stream.run(opened: {}, received: { _ in })
        guard case .failed = ending else { Issue.record("ended as \(ending)"); return }
    }
}
