import NIOCore
import NIOHTTP1
import NIOPosix

// The floor for the HTTP listener on its stack: SwiftNIO on one event loop thread, answering
// every request with the same bytes, as scripts/bench 8a measures it beside btcpriced and nginx.
// `encoder`: NIO's whole HTTP/1.1 server pipeline (decoder, response encoder, pipelining and
// error handlers), the answer written as head, body and end. `one-write`: NIO's decoder, the
// answer written as one buffer, as btcpriced's listener does.
// Usage: http-floor PORT FILE encoder|one-write
let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]), ["encoder", "one-write"].contains(arguments[3]) else {
    print("usage: http-floor PORT FILE encoder|one-write")
    exit(64)
}
var body: [UInt8] = []
if let file = fopen(arguments[2], "r") {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { body += chunk[..<count] }
    fclose(file)
}
let reply = body
let oneWrite = arguments[3] == "one-write"
let wholeAnswer = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(reply.count)\r\n\r\n".utf8) + reply

final class EncodedAnswer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(reply.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

final class OneWriteAnswer: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: wholeAnswer)), promise: nil)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            if oneWrite {
                try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
                try pipeline.addHandler(OneWriteAnswer())
            } else {
                try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                try pipeline.addHandler(EncodedAnswer())
            }
        }
    }
    .bind(host: "127.0.0.1", port: port).wait()
print("listening on \(channel.localAddress!)")
fflush(nil)
try channel.closeFuture.wait()
