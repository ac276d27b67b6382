import NIOCore
import NIOEmbedded
import NIOWebSocket
import Streams
import Testing

/// Pings on NIO's embedded channel: a venue that floods pings while our socket takes no more
/// gets one pong, for its newest ping, once the socket drains (RFC 6455, 5.5.3).
@Suite("Pongs: only the newest ping is answered, and at most one pong is owed")
struct PongTests {
    func ping(_ text: String, on channel: EmbeddedChannel) throws {
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x9, Array(text.utf8)))
    }

    func pongs(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .pong && frame.maskKey != nil, "a masked pong, as a client sends")
            // The encoder masks on the way out; here the frame still holds the plain payload.
            var data = frame.data
            texts.append(data.readString(length: data.readableBytes) ?? "")
        }
        return texts
    }

    @Test func aPingFloodWhileTheSocketIsFullOwesOnePongForTheNewestPing() throws {
        let channel = EmbeddedChannel(handler: StreamFrameHandler(maximumMessage: 65_536) { _ in nil })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9443)).wait()
        try ping("first", on: channel)
        let first = try pongs(channel)
        #expect(first == ["first"], "a ping is answered at once while the socket takes writes: \(first)")

        // Within the control frames a second allows.
        channel.isWritable = false
        for number in 1...99 { try ping("ping \(number)", on: channel) }
        let held = try pongs(channel)
        #expect(held.count == 0, "nothing is queued while the socket takes no more: \(held.count) pongs, \(held.prefix(3))")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let owed = try pongs(channel)
        #expect(owed == ["ping 99"], "one pong, for the newest ping: \(owed.count) pongs, \(owed.prefix(3))")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        try ping("after", on: channel)
        let after = try pongs(channel)
        #expect(after == ["after"], "\(after)")
    }

    /// Every frame the handler wrote: `pong TEXT` or `close CODE`.
    func frames(_ channel: EmbeddedChannel) throws -> [String] {
        var frames: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            var data = frame.data
            frames.append(frame.opcode == .connectionClose ? "close \(data.readWebSocketErrorCode().map { "\($0)" } ?? "-")"
                                                          : "pong \(data.readString(length: data.readableBytes) ?? "")")
        }
        return frames
    }

    /// More control frames in a second than any venue needs fail the connection with 1008: a
    /// flood costs one close frame, not a core spent answering it.
    @Test func aFloodOfPingsFailsTheConnectionWith1008() throws {
        let channel = EmbeddedChannel(handler: StreamFrameHandler(maximumMessage: 65_536) { _ in nil })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9443)).wait()
        for second in 0..<3 {
            for number in 1...StreamFrameHandler.maximumControlFramesPerSecond { try ping("\(second).\(number)", on: channel) }
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        let allowed = try frames(channel)
        #expect(allowed.count == 300 && allowed.allSatisfy { $0.hasPrefix("pong") }, "100 a second is within the limit: \(allowed.suffix(2))")
        for number in 0...StreamFrameHandler.maximumControlFramesPerSecond { try ping("flood \(number)", on: channel) }
        let flood = try frames(channel)
        #expect(flood.last == "close policyViolation" && flood.filter { $0.hasPrefix("pong") }.count == 100, "\(flood.suffix(3))")
        try ping("after", on: channel)
        #expect(try frames(channel).isEmpty, "nothing is read or sent after our close")
    }

    /// A pong owed while the socket took no more is never sent once our close frame has gone.
    @Test func noPongFollowsOurCloseFrame() throws {
        let channel = EmbeddedChannel(handler: StreamFrameHandler(maximumMessage: 65_536) { _ in nil })
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9443)).wait()
        channel.isWritable = false
        try ping("owed", on: channel)
        try channel.writeInbound(ServerFrame.bytes(opcode: 0x3, []))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try frames(channel) == ["close protocolError"])
    }
}
