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

        channel.isWritable = false
        for number in 1...10_000 { try ping("ping \(number)", on: channel) }
        let held = try pongs(channel)
        #expect(held.count == 0, "nothing is queued while the socket takes no more: \(held.count) pongs, \(held.prefix(3))")

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let owed = try pongs(channel)
        #expect(owed == ["ping 10000"], "one pong, for the newest ping: \(owed.count) pongs, \(owed.prefix(3))")
        try ping("after", on: channel)
        let after = try pongs(channel)
        #expect(after == ["after"], "\(after)")
    }
}
