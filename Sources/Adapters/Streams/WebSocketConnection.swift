import Exchanges
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSOCKS
import NIOSSL
import NIOWebSocket
import Synchronization

/// How a connection ended, as first seen by whichever side ended it.
final class WebSocketEnding: Sendable {
    enum Reason: Sendable {
        case closedByVenue(WebSocketErrorCode?)
        case closedByUs(WebSocketErrorCode, String)
        /// The venue answered the upgrade with this HTTP status instead of 101.
        case declined(status: UInt)
        case failed(String)
        /// We gave the connection up (a stall, an upgrade never answered, shutdown).
        case givenUp
    }

    private let first = Mutex<Reason?>(nil)
    func record(_ reason: Reason) { first.withLock { $0 = $0 ?? reason } }
    var reason: Reason? { first.withLock { $0 } }
}

/// One WebSocket client connection that we own from the TCP connect to the close: whatever
/// happens (an upgrade declined or never answered, a non-101 status, cancellation), the socket
/// is closed at once. Frames are read on the event loop by `StreamFrameHandler`.
enum WebSocketConnection {
    struct Target: Sendable, Equatable {
        let tls: Bool
        let host: String
        let port: Int
        /// Path and query.
        let resource: String

        /// `ws://` or `wss://` URLs only; nil for anything else.
        init?(url: String) {
            guard url.lowercased().hasPrefix("ws://") || url.lowercased().hasPrefix("wss://"), let target = URLTarget(url) else { return nil }
            tls = target.tls
            host = target.host
            port = target.port
            resource = target.resource
        }

        var hostHeader: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == (tls ? 443 : 80) ? name : "\(name):\(port)"
        }

        var isIPAddress: Bool { host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." } }
    }

    /// Made once: a TLS context loads the system's trust roots.
    private static let tlsContext: Result<NIOSSLContext, any Error> = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }

    /// Connects, upgrades, sends `greetings` and reads messages until the connection ends, or
    /// the task is cancelled (then a close frame is sent and the socket closed). With a
    /// `readInterval`, the upgraded connection is read at most once per interval (`ReadPacer`),
    /// more slowly while `reads` says nobody watches; `endOfRead` follows the messages of each read.
    /// Through `proxy`, when given: SOCKS5 hands it the host name (never resolved here); HTTP
    /// asks it to CONNECT, and the WebSocket starts once the tunnel stands.
    static func run(_ target: Target, proxy: ProxyURL? = nil, connectTimeout: TimeAmount, on eventLoop: any EventLoop, greetings: [String], maximumMessage: Int,
                    readInterval: TimeAmount?, reads: PacedReads? = nil, opened: @escaping @Sendable () -> Void, message: @escaping @Sendable ([UInt8]) -> String?,
                    endOfRead: @escaping @Sendable () -> Void) async -> WebSocketEnding.Reason {
        let ending = WebSocketEnding()
        let channel: any Channel
        @Sendable func setUp(_ channel: any Channel) throws {
            try configure(channel, target: target, greetings: greetings, maximumMessage: maximumMessage, readInterval: readInterval, reads: reads,
                          ending: ending, opened: opened, message: message, endOfRead: endOfRead)
        }
        let tunnel = proxy.flatMap { $0.isSOCKS ? nil : eventLoop.makePromise(of: Void.self) }
        let opening = OpeningChannel()
        do {
            channel = try await withTaskCancellationHandler {
                try await ClientBootstrap(group: eventLoop)
                    .connectTimeout(connectTimeout)
                    .channelInitializer { channel in
                        guard opening.opens(channel) else { return channel.eventLoop.makeFailedFuture(CancellationError()) }
                        return channel.eventLoop.makeCompletedFuture {
                            if let proxy, let tunnel {
                                try ProxyTunnel.addConnect(to: channel, target: target, proxy: proxy, promise: tunnel)
                            } else {
                                if proxy != nil {
                                    // Buffers what the handlers below write until the proxy has connected.
                                    try channel.pipeline.syncOperations.addHandler(SOCKSClientHandler(targetAddress: .domain(target.host, port: target.port)))
                                }
                                try setUp(channel)
                            }
                        }
                    }
                    .connect(host: proxy?.host ?? target.host, port: proxy?.port ?? target.port).get()
            } onCancel: {
                opening.cancel()
            }
        } catch {
            tunnel?.fail(error)
            if Task.isCancelled { return .givenUp }
            return .failed(proxy.map { "cannot connect to the proxy \($0): \(error)" } ?? "cannot connect to \(target.hostHeader): \(error)")
        }
        if let proxy, let tunnel, let failure = await awaitTunnel(tunnel, on: channel, proxy: proxy, target: target, setUp: setUp) {
            return failure
        }
        await readUntilClosed(channel, ending: ending)
        return ending.reason ?? .closedByVenue(nil)
    }

    /// Through an HTTP proxy: waits for its CONNECT, then starts the WebSocket in the tunnel.
    /// Nil once it stands; the reason when it did not.
    private static func awaitTunnel(_ tunnel: EventLoopPromise<Void>, on channel: any Channel, proxy: ProxyURL, target: Target,
                                    setUp: @escaping @Sendable (any Channel) throws -> Void) async -> WebSocketEnding.Reason? {
        do {
            // Closing the channel fails the tunnel's promise at once.
            try await withTaskCancellationHandler {
                try await tunnel.futureResult.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            try await ProxyTunnel.removeCodec(from: channel).get()
            try await channel.eventLoop.submit { try setUp(channel) }.get()
            return nil
        } catch {
            channel.close(promise: nil)
            if Task.isCancelled { return .givenUp }
            return .failed("the proxy \(proxy) did not open a tunnel to \(target.hostHeader): \(error)")
        }
    }

    /// Until the channel closes; cancelled, it says goodbye first.
    private static func readUntilClosed(_ channel: any Channel, ending: WebSocketEnding) async {
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            ending.record(.givenUp)
            channel.eventLoop.execute {
                // Upgraded: say goodbye with a close frame; otherwise there is no WebSocket yet.
                if let frames = try? channel.pipeline.syncOperations.handler(type: StreamFrameHandler.self) {
                    frames.goAway()
                } else {
                    channel.close(promise: nil)
                }
            }
        }
    }

    private static func configure(_ channel: any Channel, target: Target, greetings: [String], maximumMessage: Int, readInterval: TimeAmount?, reads: PacedReads?,
                                  ending: WebSocketEnding, opened: @escaping @Sendable () -> Void,
                                  message: @escaping @Sendable ([UInt8]) -> String?, endOfRead: @escaping @Sendable () -> Void) throws {
        if target.tls {
            let handler = try NIOSSLClientHandler(context: try tlsContext.get(), serverHostname: target.isIPAddress ? nil : target.host)
            try channel.pipeline.syncOperations.addHandler(handler)
        }
        let request = UpgradeRequestHandler(target: target, ending: ending)
        let upgrader = StreamUpgrader { channel in
            _ = channel.pipeline.syncOperations.removeHandler(name: UpgradeRequestHandler.name)
            try channel.pipeline.syncOperations.addHandler(
                StreamFrameHandler(greetings: greetings, maximumMessage: maximumMessage, ending: ending, message: message, endOfRead: endOfRead))
            if let readInterval, readInterval > .zero {
                // From here on the pacer asks for every read; the upgrade itself was read as usual.
                try channel.syncOptions?.setOption(.autoRead, value: false)
                // A paced read takes an interval's messages at once: buffers that fit them
                // from the start, so a busy interval needs no second read (NIO's default starts
                // at 2 KiB, a dozen trade messages).
                try channel.syncOptions?.setOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 4096, initial: 16_384, maximum: 65_536))
                try channel.pipeline.syncOperations.addHandler(ReadPacer(interval: readInterval, reads: reads), position: .first)
            }
            opened()
        }
        try channel.pipeline.syncOperations.addHTTPClientHandlers(
            leftOverBytesStrategy: .forwardBytes,
            withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try channel.pipeline.syncOperations.addHandler(request, name: UpgradeRequestHandler.name)
    }
}

/// NIO's WebSocket upgrade (the request's key, the answer's check), with our own frame reading:
/// after the upgrade the pipeline gets NIO's frame encoder, for the frames we send, and
/// `StreamFrameHandler`, which reads the frames itself (NIO's upgrader would add its decoder,
/// which cannot be taken out before what came with the upgrade's answer reaches it).
private struct StreamUpgrader: NIOHTTPClientProtocolUpgrader {
    private let webSocket = NIOWebSocketClientUpgrader { channel, _ in channel.eventLoop.makeSucceededVoidFuture() }
    private let upgraded: (any Channel) throws -> Void

    init(upgraded: @escaping (any Channel) throws -> Void) {
        self.upgraded = upgraded
    }

    var supportedProtocol: String { webSocket.supportedProtocol }
    var requiredUpgradeHeaders: [String] { webSocket.requiredUpgradeHeaders }
    func addCustom(upgradeRequestHeaders: inout HTTPHeaders) { webSocket.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders) }
    func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool { webSocket.shouldAllowUpgrade(upgradeResponse: upgradeResponse) }

    func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
        let channel = context.channel
        return context.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try upgraded(channel)
        }
    }
}

/// Sends the upgrade request once connected; a response that is not the upgrade (a 200, a 451)
/// arrives here, and the connection is closed at once with the status recorded.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    static let name = "btcpriced.upgrade-request"

    private let target: WebSocketConnection.Target
    private let ending: WebSocketEnding

    init(target: WebSocketConnection.Target, ending: WebSocketEnding) {
        self.target = target
        self.ending = ending
    }

    /// Added to a connection that is already up (after a proxy's tunnel): ask at once.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendUpgrade(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendUpgrade(context: context)
        context.fireChannelActive()
    }

    private func sendUpgrade(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.resource, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            ending.record(.declined(status: response.status.code))
        }
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIO's upgrade handler reports a declined upgrade here; the response itself follows.
        guard !(error is NIOHTTPClientUpgradeError) else { return }
        ending.record(.failed("\(error)"))
        context.close(promise: nil)
    }
}

/// The channel a connect is opening. NIO's connect future does not follow the task's
/// cancellation: without this, a connection given up while its TCP connect hangs (a black-holed
/// venue) would hold the supervisor's task group, and a stop, for the whole connect timeout.
private final class OpeningChannel: Sendable {
    private let state = Mutex<(channel: (any Channel)?, cancelled: Bool)>((nil, false))

    /// From the channel initializer: false when the task was cancelled before the channel existed.
    func opens(_ channel: any Channel) -> Bool {
        state.withLock { state in
            state.channel = channel
            return !state.cancelled
        }
    }

    func cancel() {
        let channel = state.withLock { state in
            state.cancelled = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}
