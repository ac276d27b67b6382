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

    /// RFC 6455, 5.1: only a client masks; a masked frame from the server fails the connection.
    @Test func aMaskedFrameFromTheVenueFailsTheConnection() throws {
        let (channel, delivered) = try start()
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x1, Array(Self.trade.utf8), mask: [0x37, 0xFA, 0x21, 0x3D]))
        #expect(try written(channel) == ["close protocolError"])
        #expect(delivered.messages.isEmpty, "\(delivered.messages)")
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

    @Test(arguments: [UInt64(65_537), 100_000, UInt64(1) << 62])
    func aFrameDeclaredTooLargeFailsTheConnectionBeforeItsPayloadArrives(length: UInt64) throws {
        let (channel, delivered) = try start()
        // The header and the first bytes of a payload that would not fit.
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x1, Array(repeating: UInt8(ascii: "0"), count: 100), length: length))
        #expect(try written(channel) == ["close messageTooLarge"], "declared \(length) bytes")
        #expect(delivered.messages.isEmpty)
    }

    /// RFC 6455, 5.2: the most significant bit of a 64-bit length must be 0.
    @Test(arguments: [UInt64(1) << 63, UInt64.max])
    func aLengthWithItsTopBitSetBreaksTheProtocol(length: UInt64) throws {
        let (channel, _) = try start()
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x1, [], length: length))
        #expect(try written(channel) == ["close protocolError"], "declared \(length) bytes")
    }

    /// After our close frame the venue has a second to close the TCP connection first (RFC
    /// 6455, 7.1.1); then we close it.
    @Test func afterItsCloseFrameTheHandlerWaitsASecondForTheVenueToHangUp() throws {
        let (channel, _) = try start()
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x3, []))
        #expect(try written(channel) == ["close protocolError"])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(channel.isActive, "the venue still has time to close first")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive, "closed by us after a second")
    }

    /// RFC 6455, 8.1: a text message that is not UTF-8 fails the connection with 1007, at the
    /// first fragment that shows it, before the rest arrives.
    @Test(arguments: [
        ("a byte that starts nothing", [[0x7B, 0xFF, 0x7D]], true),
        ("an overlong slash", [[0x7B, 0xC0, 0xAF, 0x7D]], true),
        ("a surrogate", [[0xED, 0xA0, 0x80]], true),
        ("past U+10FFFF", [[0xF4, 0x90, 0x80, 0x80]], true),
        ("a stray continuation in a later fragment", [Array("{\"p\":".utf8), [0x80], Array("}".utf8)], false),
        ("a character cut by the message's end", [Array("{\"p\":\"".utf8), [0xE2, 0x82]], false),
    ] as [(String, [[UInt8]], Bool)])
    func textThatIsNotUTF8FailsWith1007(what: String, fragments: [[UInt8]], failsAtFirst: Bool) throws {
        let (channel, delivered) = try start()
        for (index, part) in fragments.enumerated() {
            try channel.writeInbound(ServerFrame.bytes(fin: index == fragments.count - 1, opcode: index == 0 ? 0x1 : 0x0, part))
            if index == 0 && failsAtFirst {
                #expect(try written(channel) == ["close dataInconsistentWithMessage"], "\(what): failed at its first fragment")
                return
            }
        }
        #expect(try written(channel) == ["close dataInconsistentWithMessage"], "\(what)")
        #expect(delivered.messages.isEmpty, "\(what): \(delivered.messages)")
    }

    @Test func aCharacterSplitAcrossFragmentsIsFine() throws {
        let (channel, delivered) = try start()
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        try channel.writeInbound(ServerFrame.bytes(fin: false, opcode: 0x1, Array("{\"c\":\"".utf8) + euro.prefix(1)))
        try channel.writeInbound(ServerFrame.bytes(fin: false, opcode: 0x0, Array(euro[1...2])))
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x0, Array("\"}".utf8)))
        #expect(delivered.messages == ["{\"c\":\"€\"}"], "\(delivered.messages)")
        #expect(try written(channel).isEmpty)
    }

    /// A close frame is checked before it is answered (RFC 6455, 5.5.1 and 7.4): a one-byte
    /// body, or a code an endpoint may not send, is 1002; a reason that is not UTF-8 is 1007;
    /// a valid close is answered with its code.
    @Test(arguments: [
        ("one byte", [0x03], "close protocolError"),
        ("no code at all", [], "close without a code"),
        ("1000", Self.code(1000), "close normalClosure"), ("1001", Self.code(1001), "close goingAway"),
        ("1003", Self.code(1003), "close unacceptableData"), ("1011", Self.code(1011), "close unexpectedServerError"),
        ("1014", Self.code(1014), "close unknown(1014)"), ("3000", Self.code(3000), "close unknown(3000)"),
        ("4999", Self.code(4999), "close unknown(4999)"),
        ("0", Self.code(0), "close protocolError"), ("999", Self.code(999), "close protocolError"),
        ("1004", Self.code(1004), "close protocolError"), ("1005", Self.code(1005), "close protocolError"),
        ("1006", Self.code(1006), "close protocolError"), ("1015", Self.code(1015), "close protocolError"),
        ("1016", Self.code(1016), "close protocolError"), ("1100", Self.code(1100), "close protocolError"),
        ("2000", Self.code(2000), "close protocolError"), ("2999", Self.code(2999), "close protocolError"),
        ("5000", Self.code(5000), "close protocolError"),
        ("a reason in UTF-8", Self.code(1000) + Array("bye, ünd tschüss".utf8), "close normalClosure"),
        ("a reason that is not UTF-8", Self.code(1000) + [0x62, 0xFF], "close dataInconsistentWithMessage"),
    ] as [(String, [UInt8], String)])
    func theVenuesCloseFrameIsCheckedBeforeItIsAnswered(what: String, body: [UInt8], answer: String) throws {
        let (channel, _) = try start()
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x8, body))
        #expect(try written(channel) == [answer], "\(what)")
    }

    static func code(_ code: UInt16) -> [UInt8] { [UInt8(code >> 8), UInt8(code & 0xFF)] }

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
        channel.embeddedEventLoop.advanceTime(by: StreamFrameHandler.closeWait)
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
        channel.embeddedEventLoop.advanceTime(by: StreamFrameHandler.closeWait)
        #expect(!channel.isActive)
    }

    /// Random messages, some fragmented with pings between the parts, with every length form,
    /// cut into random reads: each arrives whole and in order.
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
                wire.writeImmutableBuffer(ServerFrame.bytes(fin: part == parts - 1, opcode: part == 0 ? 0x1 : 0x0,
                                                            Array(bytes[cuts[part]..<cuts[part + 1]])))
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
        channel.embeddedEventLoop.advanceTime(by: StreamFrameHandler.closeWait)
        #expect(channel.isActive == closes.isEmpty, "seed \(seed): active \(channel.isActive) after \(closes)")
    }
}
