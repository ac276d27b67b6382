import Exchanges
import NIOCore
import NIOExtras
import NIOHTTP1

/// An HTTP proxy's CONNECT tunnel for a stream, with NIOExtras' handler: the request codec
/// lives only until the proxy answers, then the WebSocket's own handlers take the channel.
enum ProxyTunnel {
    private static let encoderName = "btcpriced.proxy-encoder"
    private static let decoderName = "btcpriced.proxy-decoder"

    static func addConnect(to channel: any Channel, target: WebSocketConnection.Target, proxy: ProxyURL, promise: EventLoopPromise<Void>) throws {
        var headers = HTTPHeaders()
        if let user = proxy.user {
            headers.add(name: "Proxy-Authorization", value: "Basic " + base64(Array("\(user):\(proxy.password ?? "")".utf8)))
        }
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(HTTPRequestEncoder(), name: encoderName)
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)), name: decoderName)
        try pipeline.addHandler(NIOHTTP1ProxyConnectHandler(targetHost: target.host, targetPort: target.port, headers: headers,
                                                            deadline: .now() + .seconds(10), promise: promise))
    }

    /// Once the tunnel stands. The decoder leaves the pipeline a tick later (it first decodes
    /// what it holds), so the WebSocket's handlers are added only when the returned future is done.
    static func removeCodec(from channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.removeHandler(name: encoderName).and(channel.pipeline.removeHandler(name: decoderName)).map { _ in }
    }

    /// RFC 4648 base64, for the Basic credentials.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                output.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
