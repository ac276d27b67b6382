import NIOCore

/// Answers 431 to a request whose line and headers pass `limit` bytes, before the HTTP parser
/// buffers them (its own cap is 80 KiB). It sits in front of the parser and only watches the
/// bytes go by for the blank line that ends each request head; nothing is copied.
final class RequestHeadLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let defaultLimit = 8 * 1024

    private let limit: Int
    private let refused: @Sendable () -> Void
    /// Bytes of the head now arriving, and the last four bytes seen (for CRLFCRLF or LFLF).
    private var headBytes = 0
    private var recent: UInt32 = 0
    private var over = false

    init(limit: Int = defaultLimit, refused: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.refused = refused
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !over else { return }
        let buffer = unwrapInboundIn(data)
        let ended = buffer.withUnsafeReadableBytes { bytes in scan(bytes) }
        guard ended else {
            over = true
            refused()
            let body = #"{"error":"header-too-large","message":"the request line and headers are over 8 KiB"}"# + "\n"
            let response = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: response))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        context.fireChannelRead(data)
    }

    /// Follows the bytes through request heads; false once a head passes the limit.
    private func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes {
            recent = recent << 8 | UInt32(byte)
            headBytes += 1
            // "\r\n\r\n", or "\n\n", which the parser also takes as the end of a head.
            if recent == 0x0D0A_0D0A || recent & 0xFFFF == 0x0A0A {
                headBytes = 0
                recent = 0
            } else if headBytes > limit {
                return false
            }
        }
        return true
    }
}
