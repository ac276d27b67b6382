/// What a broker may send a publish-only client: CONNACK and PINGRESP. Anything else (a
/// PUBLISH it was never subscribed to, an oversized or malformed packet) is a protocol error,
/// and the connection is closed. Packets are a few bytes, so at most `longestPacket` bytes are
/// ever held, whatever the broker sends.
public enum MQTTInbound: Sendable, Equatable {
    case connectionAccepted(sessionPresent: Bool)
    case connectionRefused(ConnectRefusal)
    case pingResponse

    /// CONNACK's return codes (MQTT 3.1.1, 3.2.2.3), said as a tired operator needs them.
    public struct ConnectRefusal: Sendable, Equatable, CustomStringConvertible {
        public let code: UInt8

        public init(code: UInt8) { self.code = code }

        public var description: String {
            switch code {
            case 1: "the broker does not speak MQTT 3.1.1 (code 1, unacceptable protocol version)"
            case 2: "the broker rejected the client identifier (code 2)"
            case 3: "the broker says the MQTT service is unavailable (code 3)"
            case 4: "bad user name or password (code 4): check the user in BTCPRICED_MQTT_URL and the password file"
            case 5: "not authorized (code 5): check the user in BTCPRICED_MQTT_URL and the password file (mosquitto says this for a wrong password too)"
            default: "refused with code \(code), which MQTT 3.1.1 does not define"
            }
        }
    }

    public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// No packet a broker sends this client is longer.
    public static let longestPacket = 4

    /// The first packet in `bytes` and how many bytes it took; nil while it is incomplete.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> (packet: MQTTInbound, length: Int)? {
        var index = bytes.startIndex
        guard index != bytes.endIndex else { return nil }
        let first = bytes[index]
        index = bytes.index(after: index)
        guard index != bytes.endIndex else { return nil }
        // Both packets have a one-byte remaining length; a longer one is never ours.
        let remaining = Int(bytes[index])
        index = bytes.index(after: index)
        switch first {
        case 0x20:
            guard remaining == 2 else { throw ProtocolError(description: "a CONNACK of \(remaining) bytes (MQTT 3.1.1 says 2)") }
            guard bytes.distance(from: index, to: bytes.endIndex) >= 2 else { return nil }
            let flags = bytes[index], code = bytes[bytes.index(after: index)]
            guard flags & 0xFE == 0 else { throw ProtocolError(description: "a CONNACK with reserved flags set (\(flags))") }
            return (code == 0 ? .connectionAccepted(sessionPresent: flags == 1) : .connectionRefused(ConnectRefusal(code: code)), 4)
        case 0xD0:
            guard remaining == 0 else { throw ProtocolError(description: "a PINGRESP of \(remaining) bytes (MQTT 3.1.1 says 0)") }
            return (.pingResponse, 2)
        default:
            throw ProtocolError(description: "packet type \(first >> 4) (flags \(first & 0x0F)), which a client that only publishes at QoS 0 never asks for")
        }
    }
}
