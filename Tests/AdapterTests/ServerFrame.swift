import NIOCore

/// A WebSocket frame as a server puts it on the wire (RFC 6455, 5.2): unmasked unless a
/// `mask` is given, with the shortest length encoding unless `length` says otherwise.
enum ServerFrame {
    static func bytes(fin: Bool = true, reserved: UInt8 = 0, opcode: UInt8, _ payload: [UInt8], mask: [UInt8]? = nil,
                      length: UInt64? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger((fin ? 0x80 : 0) | reserved << 4 | opcode)
        let declared = length ?? UInt64(payload.count)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch declared {
        case ..<126: buffer.writeInteger(maskBit | UInt8(declared))
        case ...UInt64(UInt16.max):
            buffer.writeInteger(maskBit | 126)
            buffer.writeInteger(UInt16(declared))
        default:
            buffer.writeInteger(maskBit | 127)
            buffer.writeInteger(declared)
        }
        if let mask {
            buffer.writeBytes(mask)
            buffer.writeBytes(payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
        } else {
            buffer.writeBytes(payload)
        }
        return buffer
    }

    static func text(_ text: String, fin: Bool = true) -> ByteBuffer { bytes(fin: fin, opcode: 0x1, Array(text.utf8)) }
}
