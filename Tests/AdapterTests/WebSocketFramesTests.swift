import NIOCore
import NIOEmbedded
import NIOWebSocket
import Streams
import TestClocks
import Testing

/// The stream's own frame reading (RFC 6455, 5.2), on NIO's embedded channel: the bytes arrive
/// as a venue's server sends them, cut anywhere, and what the handler delivers, answers and
/// closes with is checked.
@Suite("WebSocket frames: read whole however the bytes are cut, and a bad frame fails the connection")
struct WebSocketFramesTests {
    final class Delivered {
        var messages: [String] = []
    }

    func start(maximumMessage: Int = 65_536) throws -> (EmbeddedChannel, Delivered) {
        let delivered = Delivered()
        let channel = EmbeddedChannel(handler: StreamFrameHandler(maximumMessage: maximumMessage) { bytes in
            delivered.messages.append(String(decoding: bytes, as: UTF8.self))
            return nil
        })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9443)).wait()
        return (channel, delivered)
    }

    /// The frames the handler wrote, as (opcode, payload) with a close frame's payload its code.
    func written(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            var data = frame.data
            if frame.opcode == .connectionClose {
                frames.append("close \(data.readWebSocketErrorCode().map { "\($0)" } ?? "without a code")")
            } else {
                frames.append("\(frame.opcode) \(data.readString(length: data.readableBytes) ?? "")")
            }
        }
        return frames
    }

    static let trade = #"{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","p":"114459.80"}}"#
    /// Over 125 bytes, so its length takes the 16-bit form.
    static let ticker = #"{"stream":"btcusdt@miniTicker","data":{"e":"24hrMiniTicker","c":"114460.25","o":"113000.00","h":"115000.00","l":"112500.00","s":"BTCUSDT"}}"#

    func wire() -> [UInt8] {
        var bytes = ServerFrame.text(Self.trade)
        bytes.writeImmutableBuffer(ServerFrame.bytes(opcode: 0x9, Array("are you there".utf8)))
        bytes.writeImmutableBuffer(ServerFrame.text(Self.ticker))
        return Array(bytes.readableBytesView)
    }

    @Test func messagesCutAtEveryByteArriveWholeAndInOrder() throws {
        let bytes = wire()
        for cut in 0...bytes.count {
            let (channel, delivered) = try start()
            try channel.writeInbound(ByteBuffer(bytes: bytes[..<cut]))
            try channel.writeInbound(ByteBuffer(bytes: bytes[cut...]))
            #expect(delivered.messages == [Self.trade, Self.ticker], "cut after byte \(cut) of \(bytes.count): \(delivered.messages)")
            #expect(try written(channel) == ["WebSocketOpcode.pong are you there"], "cut after byte \(cut)")
        }
    }

    @Test func messagesArrivingOneByteAtATimeArriveWhole() throws {
        let (channel, delivered) = try start()
        for byte in wire() { try channel.writeInbound(ByteBuffer(bytes: [byte])) }
        #expect(delivered.messages == [Self.trade, Self.ticker], "\(delivered.messages)")
    }

    @Test func aMaskedFrameIsUnmasked() throws {
        let (channel, delivered) = try start()
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x1, Array(Self.trade.utf8), mask: [0x37, 0xFA, 0x21, 0x3D]))
        #expect(delivered.messages == [Self.trade])
    }

    @Test func aFragmentedMessageIsDeliveredWholeWithAPingBetweenItsParts() throws {
        let (channel, delivered) = try start()
        let parts = [String(Self.ticker.prefix(40)), String(Self.ticker.dropFirst(40).prefix(40)), String(Self.ticker.dropFirst(80))]
        try channel.writeInbound(ServerFrame.text(parts[0], fin: false))
        try channel.writeInbound(ServerFrame.bytes(fin: false, opcode: 0x0, Array(parts[1].utf8)))
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x9, Array("between".utf8)))
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x0, Array(parts[2].utf8)))
        #expect(delivered.messages == [Self.ticker], "\(delivered.messages)")
        #expect(try written(channel) == ["WebSocketOpcode.pong between"])
    }

    @Test(arguments: [UInt64(65_537), 100_000, UInt64.max])
    func aFrameDeclaredTooLargeFailsTheConnectionBeforeItsPayloadArrives(length: UInt64) throws {
        let (channel, delivered) = try start()
        // The header and the first bytes of a payload that would not fit.
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x1, Array(repeating: UInt8(ascii: "0"), count: 100), length: length))
        #expect(try written(channel) == ["close messageTooLarge"], "declared \(length) bytes")
        #expect(!channel.isActive, "the connection is closed after the close frame")
        #expect(delivered.messages.isEmpty)
    }

    @Test func fragmentsBeyondTheLargestMessageFailTheConnection() throws {
        let (channel, delivered) = try start(maximumMessage: 1_024)
        let part = Array(repeating: UInt8(ascii: "7"), count: 600)
        try channel.writeInbound(ServerFrame.bytes(fin: false, opcode: 0x1, part))
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x0, part))
        #expect(try written(channel) == ["close messageTooLarge"])
        #expect(delivered.messages.isEmpty)
    }

    static let brokenFrames: [(String, ByteBuffer)] = [
        ("a fragmented ping", ServerFrame.bytes(fin: false, opcode: 0x9, [1, 2])),
        ("a ping of 126 bytes", ServerFrame.bytes(opcode: 0x9, Array(repeating: 1, count: 126))),
        ("RSV1 without an extension", ServerFrame.bytes(reserved: 0x4, opcode: 0x1, Array("{}".utf8))),
        ("the reserved opcode 3", ServerFrame.bytes(opcode: 0x3, [])),
        ("the reserved control opcode 11", ServerFrame.bytes(opcode: 0xB, [])),
        ("a continuation of no message", ServerFrame.bytes(opcode: 0x0, Array("{}".utf8))),
        ("a new message inside a fragmented one", {
            var bytes = ServerFrame.text("{\"a\":", fin: false)
            bytes.writeImmutableBuffer(ServerFrame.text("{}"))
            return bytes
        }()),
    ]

    @Test(arguments: brokenFrames)
    func aFrameThatBreaksTheProtocolFailsTheConnectionAndNothingAfterItIsRead(what: String, frame: ByteBuffer) throws {
        let (channel, delivered) = try start()
        var bytes = frame
        bytes.writeImmutableBuffer(ServerFrame.text(Self.trade))
        try channel.writeInbound(bytes)
        let sent = try written(channel)
        #expect(sent == ["close protocolError"], "\(what): \(sent)")
        #expect(delivered.messages.isEmpty, "\(what): \(delivered.messages)")
        #expect(!channel.isActive, "\(what): the connection is closed after the close frame")
    }

    @Test func theVenuesCloseIsAnsweredWithItsCodeAndNothingAfterItIsRead() throws {
        let (channel, delivered) = try start()
        var bytes = ServerFrame.text(Self.trade)
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .goingAway)
        bytes.writeImmutableBuffer(ServerFrame.bytes(opcode: 0x8, Array(code.readableBytesView)))
        bytes.writeImmutableBuffer(ServerFrame.text(Self.ticker))
        try channel.writeInbound(bytes)
        #expect(delivered.messages == [Self.trade], "\(delivered.messages)")
        #expect(try written(channel) == ["close goingAway"])
        #expect(!channel.isActive)
    }

    /// Random messages, some fragmented with pings between the parts, some masked, with every
    /// length form, cut into random reads: each arrives whole and in order.
    @Test(arguments: 1...40)
    func randomMessagesCutAtRandomArriveWholeAndInOrder(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var wire = ByteBuffer()
        var sent: [String] = []
        for number in 0..<Int.random(in: 1...12, using: &random) {
            let size = [Int.random(in: 0...125, using: &random), Int.random(in: 126...2_000, using: &random),
                        Int.random(in: 65_536...70_000, using: &random)][Int.random(in: 0...2, using: &random)]
            let text = "\(number):" + String(repeating: "x", count: size)
            sent.append(text)
            let bytes = Array(text.utf8)
            let parts = Int.random(in: 1...3, using: &random)
            let cuts = ([0, bytes.count] + (1..<parts).map { _ in Int.random(in: 0...bytes.count, using: &random) }).sorted()
            for part in 0..<parts {
                let mask = Bool.random(using: &random) ? (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) } : nil
                wire.writeImmutableBuffer(ServerFrame.bytes(fin: part == parts - 1, opcode: part == 0 ? 0x1 : 0x0,
                                                            Array(bytes[cuts[part]..<cuts[part + 1]]), mask: mask))
                if part < parts - 1, Bool.random(using: &random) { wire.writeImmutableBuffer(ServerFrame.bytes(opcode: 0x9, [])) }
            }
        }
        let (channel, delivered) = try start(maximumMessage: 80_000)
        while wire.readableBytes > 0, let read = wire.readSlice(length: min(wire.readableBytes, Int.random(in: 1...9_000, using: &random))) {
            try channel.writeInbound(read)
        }
        #expect(delivered.messages.count == sent.count, "seed \(seed): \(delivered.messages.count) of \(sent.count) messages")
        #expect(delivered.messages == sent, "seed \(seed)")
        #expect(channel.isActive, "seed \(seed)")
    }

    /// Random bytes in random reads: never a crash, at most one close frame (ours for a bad frame,
    /// or the answer to one from the venue), and the connection is closed exactly when one was sent.
    @Test(arguments: 1...200)
    func randomBytesNeverCrashAndEndWithAtMostOneClose(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let (channel, _) = try start(maximumMessage: 1_024)
        var bytes = ByteBuffer(bytes: (0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        while bytes.readableBytes > 0, let read = bytes.readSlice(length: min(bytes.readableBytes, Int.random(in: 1...64, using: &random))) {
            try channel.writeInbound(read)
        }
        let closes = try written(channel).filter { $0.hasPrefix("close") }
        #expect(closes.count <= 1, "seed \(seed): \(closes)")
        #expect(channel.isActive == closes.isEmpty, "seed \(seed): active \(channel.isActive) after \(closes)")
    }
}
