import EventLoopScheduling
import Exchanges
import NIOCore
import NIOPosix
import PriceCore
import NIOWebSocket

/// The venues that publish a public price stream.
public enum StreamVenue: String, CaseIterable, Sendable {
    case binance, coinbase, kraken

    public var sourceName: SourceName { SourceName(rawValue) }
}

/// One connection to a venue's stream over WebSocket (`WebSocketConnection` on SwiftNIO): connect, subscribe,
/// and hand on what each message says until the connection ends, which it reports as a
/// `StreamLink.Ending`. `wss://` always verifies the certificate (NIOSSL's client defaults).
public struct VenueStream: Sendable {
    public let venue: StreamVenue
    /// The configured URL; Binance's stream path is appended to it.
    public let url: String
    public let binanceSymbol: String
    /// The loop the connection and its reader run on.
    public let eventLoop: any EventLoop

    public init(venue: StreamVenue, url: String, binanceSymbol: String = "BTCUSDT",
                eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()) {
        self.venue = venue
        self.url = url
        self.binanceSymbol = binanceSymbol
        self.eventLoop = eventLoop
    }

    var connectURL: String {
        venue == .binance ? BinanceStream.url(base: url, symbol: binanceSymbol) : url
    }

    var subscriptions: [String] {
        switch venue {
        case .binance: []
        case .coinbase: CoinbaseStream.subscriptions
        case .kraken: [KrakenStream.subscription]
        }
    }

    func parse(_ frame: [UInt8]) throws(FetchFailure) -> [StreamEvent] {
        switch venue {
        case .binance: try BinanceStream.parse(frame, expectedSymbol: binanceSymbol)
        case .coinbase: try CoinbaseStream.parse(frame)
        case .kraken: try KrakenStream.parse(frame)
        }
    }

    /// Runs one connection to its end. `opened` is called once the upgrade succeeded, `received`
    /// for every message, both on `eventLoop`. Cancelling the task closes the connection.
    public func run<Instant>(opened: @escaping @Sendable () -> Void,
                             received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        await withTaskExecutorPreference(EventLoopExecutor(eventLoop)) {
            await connect(opened: opened, received: received)
        }
    }

    private func connect<Instant>(opened: @escaping @Sendable () -> Void,
                                  received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        guard let target = WebSocketConnection.Target(url: connectURL) else { return .failed("\(venue.rawValue) stream: not a ws:// or wss:// URL") }
        let reason = await WebSocketConnection.run(target, on: eventLoop, greetings: subscriptions, maximumMessage: StreamLimits.largestMessage,
                                                   opened: opened) { frame in
            do throws(FetchFailure) {
                received(try parse(frame))
                return nil
            } catch {
                return "\(venue.rawValue) sent a message that is not a ticker: \(error.description)"
            }
        }
        switch reason {
        case .closedByVenue(let code?): return .closed("closed by \(venue.rawValue) (\(code))")
        case .closedByVenue(nil): return .closed("closed by \(venue.rawValue)")
        case .closedByUs(.unacceptableData, let problem): return .failed(problem)
        // Say who closed: here btcpriced did, because the venue broke the protocol.
        case .closedByUs(let code, let problem): return .closed("closed by btcpriced: \(venue.rawValue) \(problem) (\(code))")
        // A declined upgrade is a refusal: 451 and 403 mostly, and a 429 or a 503 deserves the
        // same long rest.
        case .declined(let status): return .refused(status: Int(status))
        case .givenUp: return .closed("cancelled")
        case .failed(let problem): return .failed("\(venue.rawValue) stream: \(problem)")
        }
    }
}
