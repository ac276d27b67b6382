import Synchronization
import EventLoopScheduling
import Exchanges
import Logging
import NIOCore
import NIOPosix
import PriceCore
import WSClient

/// The venues that publish a public price stream.
public enum StreamVenue: String, CaseIterable, Sendable {
    case binance, coinbase, kraken

    public var sourceName: SourceName { SourceName(rawValue) }

    public var defaultURL: String {
        switch self {
        case .binance: "wss://stream.binance.com:9443"
        case .coinbase: "wss://advanced-trade-ws.coinbase.com"
        case .kraken: "wss://ws.kraken.com/v2"
        }
    }
}

/// One connection to a venue's stream over WebSocket (WSClient on SwiftNIO): connect, subscribe,
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
    public func run<Instant>(logger: Logger, opened: @escaping @Sendable () -> Void,
                             received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        await withTaskExecutorPreference(EventLoopExecutor(eventLoop)) {
            await connect(logger: logger, opened: opened, received: received)
        }
    }

    private func connect<Instant>(logger: Logger, opened: @escaping @Sendable () -> Void,
                                  received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        let problem = ProblemBox()
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 16, autoPing: .disabled, validateUTF8: true)
        do {
            let close = try await WebSocketClient.connect(url: connectURL, configuration: configuration, eventLoopGroup: eventLoop, logger: logger) { inbound, outbound, _ in
                opened()
                for subscription in subscriptions { try await outbound.write(.text(subscription)) }
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    let frame: [UInt8]
                    switch message {
                    case .text(let text): frame = Array(text.utf8)
                    case .binary(let buffer): frame = Array(buffer.readableBytesView)
                    }
                    do throws(FetchFailure) {
                        received(try parse(frame))
                    } catch {
                        problem.set("\(venue.rawValue) sent a message that is not a ticker: \(error.description)")
                        return
                    }
                }
            }
            if let reason = problem.value { return .failed(reason) }
            return .closed(close.map { "closed by \(venue.rawValue) (\($0.closeCode))" } ?? "closed by \(venue.rawValue)")
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            // Neither WSClient nor NIO reports the status of a declined upgrade (apple/swift-nio
            // #3274), so every declined upgrade is a refusal: 451 and 403 mostly, and a 429 or
            // a 503 deserves the same long rest.
            return .refused(status: 0)
        } catch is CancellationError {
            return .closed("cancelled")
        } catch {
            return .failed("\(venue.rawValue) stream: \(error)")
        }
    }
}

/// The first problem a message handler found, read after the connection ended.
final class ProblemBox: Sendable {
    private let stored = Mutex<String?>(nil)
    var value: String? { stored.withLock { $0 } }
    func set(_ problem: String) { stored.withLock { $0 = $0 ?? problem } }
}
