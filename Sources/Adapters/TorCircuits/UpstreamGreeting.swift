import NIOCore

/// The relay's side of a SOCKS5 greeting to the real proxy (RFC 1928 §3): it offers no
/// authentication and a user name and password (RFC 1929), and gives the venue's credentials
/// when the proxy picks the latter. Tor does whenever it is offered, and with its default
/// IsolateSOCKSAuth, different credentials get different circuits.
final class UpstreamGreeting: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Failure: Error, CustomStringConvertible {
        case noAcceptableMethod, credentialsRefused, notSOCKS5, closed, noAnswer

        var description: String {
            switch self {
            case .noAcceptableMethod: "the proxy accepts neither no authentication nor a user name and password"
            case .credentialsRefused: "the proxy refused the user name and password"
            case .notSOCKS5: "the proxy does not speak SOCKS5"
            case .closed: "the proxy closed the connection during the SOCKS5 greeting"
            case .noAnswer: "the proxy did not answer the SOCKS5 greeting in time"
            }
        }
    }

    private let user: [UInt8], password: [UInt8]
    private let done: EventLoopPromise<Void>
    private var received = ByteBuffer()
    private var awaitingCredentialsReply = false
    private var finished = false

    init(user: String, password: String, done: EventLoopPromise<Void>) {
        self.user = Array(user.utf8.prefix(255))
        self.password = Array(password.utf8.prefix(255))
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        // Version 5, two methods: none (0x00) and user name and password (0x02).
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: [5, 2, 0x00, 0x02])), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        guard received.readableBytes >= 2, let reply = received.readBytes(length: 2) else { return }
        if awaitingCredentialsReply {
            reply == [1, 0] ? succeed() : fail(Failure.credentialsRefused)
            return
        }
        guard reply[0] == 5 else { return fail(Failure.notSOCKS5) }
        switch reply[1] {
        case 0x00:
            succeed()
        case 0x02:
            awaitingCredentialsReply = true
            let message = [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: message)), promise: nil)
        default:
            fail(Failure.noAcceptableMethod)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(Failure.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    private func succeed() {
        guard !finished else { return }
        finished = true
        done.succeed()
    }

    private func fail(_ error: any Error) {
        guard !finished else { return }
        finished = true
        done.fail(error)
    }
}
