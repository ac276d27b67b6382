import NIOCore
import NIOWebSocket

/// Reads a venue's WebSocket frames on the event loop (`WebSocketFrameReader`, in place of
/// NIO's decoder: no frame object and no pipeline hop per message) and hands each whole message
/// to `message` there and then, with no task hop, and tells `endOfRead` when a read's messages
/// are all handed over: answers pings, checks and answers the venue's close frame, and closes
/// with a close frame of its own when a frame breaks the protocol (RFC 6455), a text is not
/// UTF-8, the venue sends control frames faster than any venue needs, a message is refused or
/// the connection is given up. After a close frame, ours or our answer to the venue's, nothing
/// more is sent, and the venue gets `closeWait` to end the TCP connection first (RFC 6455,
/// 7.1.1) before we do.
public final class StreamFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundOut = WebSocketFrame

    /// Control frames (ping, pong, close) one second may bring before the venue counts as
    /// hostile: real venues ping every few seconds at most.
    public static let maximumControlFramesPerSecond = 100
    /// How long the venue has to close the TCP connection after the close frames.
    public static let closeWait = TimeAmount.seconds(1)

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
    /// Set once a close frame went out: nothing more is sent, pongs included.
    private var closeSent = false
    /// The parts of a fragmented message, bounded by `maximumMessage`, and whether it is text.
    private var fragments: [UInt8]?
    private var fragmentsAreText = false
    /// The text message being received, checked as UTF-8 fragment by fragment.
    private var text = UTF8Validation()
    /// The newest ping not yet answered. Only the newest is answered (RFC 6455, 5.5.3), and
    /// only one pong is ever queued: a venue that floods pings and never reads the pongs
    /// cannot make us hold one per ping.
    private var owedPong: ByteBuffer?
    private var pongInFlight = false
    /// Control frames counted in the current second, and when it began.
    private var controlFrames = 0
    private var controlSecond: NIODeadline?
    private var context: ChannelHandlerContext?

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
        self.context = context
        for text in greetings {
            context.write(wrapOutboundOut(Self.frame(.text, context.channel.allocator.buffer(string: text))), promise: nil)
        }
        context.flush()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
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
            let isText = frame.kind == .text
            if isText { text = UTF8Validation() }
            guard !isText || checkText(frame.payload, ends: frame.fin, context: context) else { return }
            guard frame.fin else {
                fragments = Array(frame.payload.readableBytesView)
                fragmentsAreText = isText
                return
            }
            deliver(Array(frame.payload.readableBytesView), context: context)
        case .continuation:
            guard var parts = fragments else { return close(.protocolError, "broke the WebSocket protocol (a continuation of no message)", context: context) }
            guard parts.count + frame.payload.readableBytes <= maximumMessage else { return closeTooLarge(context: context) }
            guard !fragmentsAreText || checkText(frame.payload, ends: frame.fin, context: context) else { return }
            parts += frame.payload.readableBytesView
            fragments = frame.fin ? nil : parts
            if frame.fin { deliver(parts, context: context) }
        case .ping:
            guard countControlFrame(context: context) else { return }
            owedPong = frame.payload
            answerPing(context: context)
        case .pong:
            guard countControlFrame(context: context) else { return }
        case .close:
            venueClosed(frame.payload, context: context)
        }
    }

    /// A text message's next bytes: false (and the connection failed with 1007) at the first
    /// byte that cannot be UTF-8, or at its end inside a character.
    private func checkText(_ payload: ByteBuffer, ends: Bool, context: ChannelHandlerContext) -> Bool {
        guard text.accepts(payload.readableBytesView), !ends || text.isComplete else {
            close(.dataInconsistentWithMessage, "sent a text message that is not UTF-8", context: context)
            return false
        }
        return true
    }

    /// False (and the connection failed with 1008) once a second brings more control frames
    /// than `maximumControlFramesPerSecond`: a flood of pings costs one close, not a core.
    private func countControlFrame(context: ChannelHandlerContext) -> Bool {
        let now = context.eventLoop.now
        if let start = controlSecond, now - start < .seconds(1) {
            controlFrames += 1
        } else {
            (controlSecond, controlFrames) = (now, 1)
        }
        guard controlFrames > Self.maximumControlFramesPerSecond else { return true }
        close(.policyViolation, "sent over \(Self.maximumControlFramesPerSecond) control frames in a second", context: context)
        return false
    }

    /// The venue's close frame (RFC 6455, 5.5.1 and 7.4): checked before it is answered. A
    /// valid one is answered with its code; a malformed one fails the connection.
    private func venueClosed(_ payload: ByteBuffer, context: ChannelHandlerContext) {
        var body = payload
        guard body.readableBytes != 1 else { return close(.protocolError, "broke the WebSocket protocol (a close frame of one byte)", context: context) }
        let code = body.readInteger(as: UInt16.self)
        if let code, !Self.isValidCloseCode(code) {
            return close(.protocolError, "broke the WebSocket protocol (the close code \(code), which may not be sent)", context: context)
        }
        var reason = UTF8Validation()
        guard reason.accepts(body.readableBytesView), reason.isComplete else {
            return close(.dataInconsistentWithMessage, "sent a close reason that is not UTF-8", context: context)
        }
        closing = true
        ending.record(.closedByVenue(code.map { WebSocketErrorCode(codeNumber: Int($0)) }))
        var reply = context.channel.allocator.buffer(capacity: 2)
        if let code { reply.writeInteger(code) }
        sendClose(reply, context: context)
    }

    /// Close codes an endpoint may send (RFC 6455, 7.4.1 and IANA's registry): 1000-1003,
    /// 1007-1014, and the ranges for libraries and applications, 3000-4999.
    static func isValidCloseCode(_ code: UInt16) -> Bool {
        (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
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
        guard !closeSent, !pongInFlight, context.channel.isWritable, let data = owedPong else { return }
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
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        sendClose(data, context: context)
    }

    /// The connection is given up (a stall, shutdown): a close frame tells the venue so.
    func goAway() {
        guard let context, !closeSent else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .goingAway)
        sendClose(data, context: context)
    }

    /// Our close frame, once; then the venue has `closeWait` to close the TCP connection, as
    /// the side that closes it first keeps its TIME_WAIT (RFC 6455, 7.1.1), before we do.
    private func sendClose(_ data: ByteBuffer, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        closeSent = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(Self.frame(.connectionClose, data)), promise: nil)
        let deadline = channel.eventLoop.scheduleTask(in: Self.closeWait) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    /// Client frames are masked (RFC 6455, 5.3).
    static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }
}
