import NIOCore

/// One connection's inbound side: reads CONNACK and PINGRESP (`MQTTInbound`), completes
/// `accepted` with the broker's answer to CONNECT, and tells the link of pings answered and of
/// the socket becoming writable again. Anything else from the broker closes the connection.
final class MQTTClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let accepted: EventLoopPromise<Void>
    private var settled = false
    private var pending: [UInt8] = []
    private let events: MQTTConnectionEvents

    init(accepted: EventLoopPromise<Void>, events: MQTTConnectionEvents) {
        self.accepted = accepted
        self.events = events
        pending.reserveCapacity(MQTTInbound.longestPacket)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readableBytesView)
        do {
            while let (packet, length) = try MQTTInbound.parse(pending) {
                pending.removeFirst(length)
                handle(packet, context: context)
            }
        } catch {
            settle(.failure(MQTTLinkError.protocolViolation(error.description)))
            events.violation(error.description)
            context.close(promise: nil)
        }
    }

    private func handle(_ packet: MQTTInbound, context: ChannelHandlerContext) {
        switch packet {
        case .connectionAccepted:
            settle(.success(()))
        case .connectionRefused(let refusal):
            settle(.failure(MQTTLinkError.refused(refusal)))
            context.close(promise: nil)
        case .pingResponse:
            events.pingAnswered()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { events.writable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(.failure(MQTTLinkError.closedBeforeAnswer))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        settle(.failure(error))
        context.close(promise: nil)
    }

    /// The answer to CONNECT, once; a later failure only closes.
    func settle(_ result: Result<Void, any Error>) {
        guard !settled else { return }
        settled = true
        accepted.completeWith(result)
    }
}

/// What a connection tells the link, on the connection's event loop.
struct MQTTConnectionEvents: Sendable {
    var pingAnswered: @Sendable () -> Void
    var writable: @Sendable () -> Void
    var violation: @Sendable (String) -> Void
}

public enum MQTTLinkError: Error, Sendable, CustomStringConvertible {
    case refused(MQTTInbound.ConnectRefusal)
    case protocolViolation(String)
    case closedBeforeAnswer
    case noAnswer(seconds: Int)

    public var description: String {
        switch self {
        case .refused(let refusal): "the broker refused the connection: \(refusal)"
        case .protocolViolation(let what): "the broker sent \(what); closed"
        case .closedBeforeAnswer: "the broker closed the connection before it answered CONNECT (is it an MQTT listener?)"
        case .noAnswer(let seconds): "no answer to CONNECT within \(seconds) s"
        }
    }
}
