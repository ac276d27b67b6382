/// The few MQTT 3.1.1 packets a publish-only client sends (OASIS MQTT 3.1.1, section 3): CONNECT
/// with a last will, PUBLISH at QoS 0, PINGREQ and DISCONNECT, as bytes. Pure, so the fuzz
/// target and the tests read them without a socket.
public enum MQTTPacket {
    /// What CONNECT carries.
    public struct Connect: Sendable, Equatable {
        public var clientID: String
        public var keepAliveSeconds: UInt16
        public var will: Message?
        public var username: String?
        public var password: String?

        public init(clientID: String, keepAliveSeconds: UInt16, will: Message?, username: String?, password: String?) {
            self.clientID = clientID
            self.keepAliveSeconds = keepAliveSeconds
            self.will = will
            self.username = username
            self.password = password
        }
    }

    /// A message at QoS 0: the broker keeps the newest retained one per topic for new subscribers.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: String
        public var retain: Bool

        public init(topic: String, payload: String, retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// The longest string field the protocol can carry (a two-byte length).
    public static let longestString = 65_535
    /// The largest packet the remaining-length field can describe (four bytes of seven bits).
    public static let largestRemainder = 268_435_455

    public static func connect(_ connect: Connect) -> [UInt8] {
        var flags: UInt8 = 0b0000_0010  // a clean session: nothing is queued for a publisher
        if let will = connect.will { flags |= 0b0000_0100 | (will.retain ? 0b0010_0000 : 0) }
        if connect.username != nil { flags |= 0b1000_0000 }
        if connect.password != nil { flags |= 0b0100_0000 }
        var body: [UInt8] = [0, 4, 0x4D, 0x51, 0x54, 0x54, 4, flags, UInt8(connect.keepAliveSeconds >> 8), UInt8(connect.keepAliveSeconds & 0xFF)]
        appendString(connect.clientID, to: &body)
        if let will = connect.will {
            appendString(will.topic, to: &body)
            appendString(will.payload, to: &body)
        }
        if let username = connect.username { appendString(username, to: &body) }
        if let password = connect.password { appendString(password, to: &body) }
        return packet(type: 1, flags: 0, body: body)
    }

    public static func publish(_ message: Message) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(message.topic.utf8.count + message.payload.utf8.count + 2)
        appendString(message.topic, to: &body)
        body.append(contentsOf: message.payload.utf8)
        return packet(type: 3, flags: message.retain ? 1 : 0, body: body)
    }

    public static let pingRequest: [UInt8] = [0xC0, 0]
    public static let disconnect: [UInt8] = [0xE0, 0]

    /// The fixed header (type, flags, the remaining length in base 128) and the body.
    static func packet(type: UInt8, flags: UInt8, body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [type << 4 | flags]
        var remaining = body.count
        repeat {
            var digit = UInt8(remaining % 128)
            remaining /= 128
            if remaining > 0 { digit |= 0x80 }
            bytes.append(digit)
        } while remaining > 0
        return bytes + body
    }

    /// A length-prefixed UTF-8 string. Callers keep strings within `longestString` (the
    /// settings check topics and names; payloads are not strings and have no prefix).
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        let count = min(text.utf8.count, longestString)
        bytes.append(UInt8(count >> 8))
        bytes.append(UInt8(count & 0xFF))
        bytes.append(contentsOf: text.utf8.prefix(count))
    }
}
