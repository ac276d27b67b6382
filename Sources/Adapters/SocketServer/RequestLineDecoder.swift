import NIOCore
import WireProtocol

/// One request line per connection, framed by NIO: the bytes before the first LF, or before the
/// end of input when the client sends none (`printf status | nc -N -U …`). A line longer than
/// protocol 1 allows is handed on as soon as it is too long, without buffering more; whatever
/// follows the request is discarded, not buffered.
struct RequestLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    private var framed = false

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !framed else {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        let limit = WireProtocol.maximumRequestLength
        if let newline = buffer.readableBytesView.prefix(limit).firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer.readSlice(length: newline - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 1)
            emit(line, context: context)
            return .continue
        }
        guard buffer.readableBytes >= limit else { return .needMoreData }
        emit(buffer.readSlice(length: limit)!, context: context)
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        if try decode(context: context, buffer: &buffer) == .continue { return .continue }
        if !framed, buffer.readableBytes > 0 {
            emit(buffer.readSlice(length: buffer.readableBytes)!, context: context)
        }
        return .needMoreData
    }

    private mutating func emit(_ line: ByteBuffer, context: ChannelHandlerContext) {
        framed = true
        context.fireChannelRead(NIOAny(line))
    }
}
