import NIOCore
import NIOWebSocket

/// A venue's WebSocket frames (RFC 6455, 5.2), cut from the bytes as they arrive. A frame that
/// arrived whole in one read is a slice of that read's buffer, not a copy, and no frame is
/// allocated: a streamed trade costs no more here than the bytes it came in. Only a frame split
/// across reads is gathered, and its header is judged before any of it is kept, so nothing
/// larger than the largest frame allowed is ever held.
struct WebSocketFrameReader {
    enum Kind {
        case continuation, text, binary, close, ping, pong
    }

    struct Frame {
        let fin: Bool
        let kind: Kind
        /// As sent: a server never masks (a masked frame fails the connection).
        let payload: ByteBuffer
    }

    /// A frame the connection must fail for (RFC 6455, 5.2 and 5.5): the close code and why.
    enum Problem: Error, Equatable {
        case tooLarge
        case fragmentedControlFrame
        case longControlFrame
        case reservedBits
        case reservedOpcode(UInt8)
        /// RFC 6455, 5.1: a client must fail the connection on a masked frame from the server.
        case masked
        /// RFC 6455, 5.2: a 64-bit length's most significant bit must be 0.
        case lengthTopBit

        var code: WebSocketErrorCode { self == .tooLarge ? .messageTooLarge : .protocolError }
    }

    let maximumFrame: Int
    /// The start of a frame whose rest has not arrived yet.
    private var partial: ByteBuffer?

    init(maximumFrame: Int) {
        self.maximumFrame = maximumFrame
    }

    /// Hands `frame` every whole frame in `bytes`, after what earlier reads left, in order,
    /// until it returns false; an incomplete frame at the end is kept for the next read.
    /// Throws at the first header that fails the connection, before its payload is read.
    mutating func read(_ bytes: ByteBuffer, each frame: (Frame) -> Bool) throws(Problem) {
        var buffer = bytes
        if var partial {
            self.partial = nil
            partial.writeImmutableBuffer(bytes)
            buffer = partial
        }
        while buffer.readableBytes > 0 {
            guard let header = try header(at: buffer.readerIndex, in: buffer),
                  let payload = buffer.getSlice(at: buffer.readerIndex + header.size, length: header.length) else { break }
            buffer.moveReaderIndex(forwardBy: header.size + header.length)
            guard frame(Frame(fin: header.fin, kind: header.kind, payload: payload)) else { return }
        }
        if buffer.readableBytes > 0 { partial = buffer }
    }

    private struct Header {
        let fin: Bool
        let kind: Kind
        let length: Int
        /// The header's own bytes: 2, then 2 or 8 more for a longer length.
        let size: Int
    }

    /// The header starting at `index`, or nil while part of it has not arrived.
    private func header(at index: Int, in buffer: ByteBuffer) throws(Problem) -> Header? {
        guard let first = buffer.getInteger(at: index, as: UInt8.self), let second = buffer.getInteger(at: index + 1, as: UInt8.self) else {
            return nil
        }
        var size = 2
        let length: UInt64
        switch second & 0x7F {
        case 126:
            guard let word = buffer.getInteger(at: index + 2, as: UInt16.self) else { return nil }
            length = UInt64(word)
            size += 2
        case 127:
            guard let word = buffer.getInteger(at: index + 2, as: UInt64.self) else { return nil }
            guard word >> 63 == 0 else { throw .lengthTopBit }
            length = word
            size += 8
        case let short:
            length = UInt64(short)
        }
        guard second & 0x80 == 0 else { throw .masked }
        guard length <= UInt64(maximumFrame) else { throw .tooLarge }
        let fin = first & 0x80 != 0
        guard first & 0x70 == 0 else { throw .reservedBits }
        let kind: Kind
        switch first & 0x0F {
        case 0x0: kind = .continuation
        case 0x1: kind = .text
        case 0x2: kind = .binary
        case 0x8: kind = .close
        case 0x9: kind = .ping
        case 0xA: kind = .pong
        case let other: throw .reservedOpcode(other)
        }
        let isControl = first & 0x08 != 0
        guard !isControl || fin else { throw .fragmentedControlFrame }
        guard !isControl || length <= 125 else { throw .longControlFrame }
        return Header(fin: fin, kind: kind, length: Int(length), size: size)
    }
}

extension WebSocketFrameReader.Problem: CustomStringConvertible {
    var description: String {
        switch self {
        case .tooLarge: "a frame too large"
        case .fragmentedControlFrame: "a fragmented control frame"
        case .longControlFrame: "a control frame over 125 bytes"
        case .reservedBits: "a frame with reserved bits set"
        case .reservedOpcode(let opcode): "a frame with the reserved opcode \(opcode)"
        case .masked: "a masked frame, which only a client may send"
        case .lengthTopBit: "a 64-bit length with its top bit set"
        }
    }
}
