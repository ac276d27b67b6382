import NIOCore
import NIOWebSocket

/// Reads a venue's WebSocket frames on the event loop (`WebSocketFrameReader`, in place of
/// NIO's decoder: no frame object and no pipeline hop per message) and hands each whole message
/// to `message` there and then, with no task hop, and tells `endOfRead` when a read's messages
/// are all handed over: answers pings, records the venue's close frame, and closes with a close
/// frame of its own when a frame breaks the protocol, a message is refused or the connection is
/// given up.
public final class StreamFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundOut = WebSocketFrame

    /// Sent once the upgrade is done: the subscriptions.
    private let greetings: [String]
    /// Called on the loop for every whole text or binary message; a returned text is a problem
    /// that ends the connection.
    private let message: ([UInt8]) -> String?
    private let endOfRead: () -> Void
    private let ending: WebSocketEnding
    private let maximumMessage: Int
    private var reader: WebSocketFrameReader
    /// Set once we closed or the venue did: nothing more is read from the connection.
    private var closing = false
    /// The parts of a fragmented message, bounded by `maximumMessage`.
    private var fragments: [UInt8]?
    /// The newest ping not yet answered. Only the newest is answered (RFC 6455, 5.5.3), and
    /// only one pong is ever queued: a venue that floods pings and never reads the pongs
    /// cannot make us hold one per ping.
    private var owedPong: ByteBuffer?
    private var pongInFlight = false

    /// A handler of its own, for a test: how the connection ended is not reported.
    public convenience init(maximumMessage: Int, message: @escaping ([UInt8]) -> String?) {
        self.init(greetings: [], maximumMessage: maximumMessage, ending: WebSocketEnding(), message: message)
    }

    init(greetings: [String], maximumMessage: Int, ending: WebSocketEnding, message: @escaping ([UInt8]) -> String?,
         endOfRead: @escaping () -> Void = {}) {
        self.greetings = greetings
        self.maximumMessage = maximumMessage
        self.ending = ending
        self.message = message
        self.endOfRead = endOfRead
        reader = WebSocketFrameReader(maximumFrame: maximumMessage)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        for text in greetings {
            context.write(wrapOutboundOut(Self.frame(.text, context.channel.allocator.buffer(string: text))), promise: nil)
        }
        context.flush()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        do throws(WebSocketFrameReader.Problem) {
            try reader.read(unwrapInboundIn(data)) { frame in
                handle(frame, context: context)
                return !closing
            }
        } catch .tooLarge {
            closeTooLarge(context: context)
        } catch {
            close(error.code, "broke the WebSocket protocol (\(error))", context: context)
        }
    }

    private func handle(_ frame: WebSocketFrameReader.Frame, context: ChannelHandlerContext) {
        switch frame.kind {
        case .text, .binary:
            guard fragments == nil else { return close(.protocolError, "broke the WebSocket protocol (a new message inside a fragmented one)", context: context) }
            guard frame.fin else {
                fragments = Array(frame.payload.readableBytesView)
                return
            }
            deliver(Array(frame.payload.readableBytesView), context: context)
        case .continuation:
            guard var parts = fragments else { return close(.protocolError, "sent a continuation of no message", context: context) }
            parts += frame.payload.readableBytesView
            guard parts.count <= maximumMessage else { return closeTooLarge(context: context) }
            fragments = frame.fin ? nil : parts
            if frame.fin { deliver(parts, context: context) }
        case .ping:
            owedPong = frame.payload
            answerPing(context: context)
        case .pong:
            break
        case .close:
            closing = true
            var data = frame.payload
            let code = data.readWebSocketErrorCode()
            ending.record(.closedByVenue(code))
            // Answer the close, then let the venue end the TCP connection (or end it ourselves).
            let reply = Self.frame(.connectionClose, context.channel.allocator.buffer(bytes: frame.payload.readableBytesView.prefix(2)))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        endOfRead()
        context.fireChannelReadComplete()
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        answerPing(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Sends the owed pong once the last one has left and the socket takes more.
    private func answerPing(context: ChannelHandlerContext) {
        guard !pongInFlight, context.channel.isWritable, let data = owedPong else { return }
        owedPong = nil
        pongInFlight = true
        let sent = context.eventLoop.makePromise(of: Void.self)
        sent.futureResult.assumeIsolated().whenComplete { [self] _ in
            pongInFlight = false
            answerPing(context: context)
        }
        context.writeAndFlush(wrapOutboundOut(Self.frame(.pong, data)), promise: sent)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ending.record(.failed("\(error)"))
        context.close(promise: nil)
    }

    private func deliver(_ bytes: [UInt8], context: ChannelHandlerContext) {
        if let problem = message(bytes) { close(.unacceptableData, problem, context: context) }
    }

    /// A frame, or a fragmented message, over the largest message allowed.
    private func closeTooLarge(context: ChannelHandlerContext) {
        close(.messageTooLarge, "sent a message over \(maximumMessage / 1024) KiB", context: context)
    }

    private func close(_ code: WebSocketErrorCode, _ reason: String, context: ChannelHandlerContext) {
        closing = true
        ending.record(.closedByUs(code, reason))
        Self.sendClose(code, on: context.channel)
    }

    /// A close frame, then the TCP close: a venue is told why rather than seeing a reset.
    static func sendClose(_ code: WebSocketErrorCode, on channel: any Channel) {
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        channel.writeAndFlush(frame(.connectionClose, data)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Client frames are masked (RFC 6455, 5.3).
    static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }
}
