/// MQTT publishing for Home Assistant (`BTCPRICED_MQTT_*`); off unless a broker URL is set.
public struct MQTTSettings: Sendable, Equatable {
    /// `mqtt://[user@]host[:port]`, parsed.
    public struct Broker: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var username: String?

        public var description: String { "mqtt://\(username.map { "\($0)@" } ?? "")\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    public var broker: Broker?
    public var topicRoot: String = "btcpriced"
    public var discoveryPrefix: String = "homeassistant"
    public var passwordFile: String?
    /// From `passwordFile`, else the systemd credential `mqtt-password` (`MQTTPasswordResolver`).
    public var password: String?

    public init() {}

    static let defaultPort = 1883
    /// The systemd credential (`LoadCredential=mqtt-password:/etc/btcpriced/mqtt-password`).
    public static let credential = "mqtt-password"
}

extension ValueParsers {
    /// `BTCPRICED_MQTT_URL`: `mqtt://host`, `mqtt://user@host:1883`, `mqtt://[::1]:1883`. A
    /// password in the URL is refused: it would be readable in the unit, `ps` and the journal.
    static func mqttBroker(_ text: String) -> Result<MQTTSettings.Broker?, InvalidValue> {
        if text.isEmpty { return .success(nil) }
        let example = "use mqtt://HOST[:PORT], with mqtt://USER@HOST:PORT for an account, such as mqtt://127.0.0.1:1883"
        guard text.hasPrefix("mqtt://") else {
            let scheme = text.split(separator: ":").first.map(String.init) ?? text
            return .failure(text.contains("://") ? "\(quoted(scheme)) is not supported (only mqtt://, plain MQTT 3.1.1; for TLS keep the broker on loopback or tunnel to it); \(example)"
                : "\(quoted(text)) is not an MQTT URL; \(example)")
        }
        var rest = Substring(text.dropFirst("mqtt://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var username: String?
        if let at = rest.lastIndex(of: "@") {
            let user = rest[..<at]
            guard !user.contains(":") else {
                return .failure("the URL holds a password; put it in a file named by BTCPRICED_MQTT_PASSWORD_FILE, or pass the systemd credential \(MQTTSettings.credential) (LoadCredential=), and keep only mqtt://USER@HOST in the URL")
            }
            guard !user.isEmpty, user.utf8.count <= 256, user.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" }) else {
                return .failure("\(quoted(String(user))) is not a user name (printable ASCII, no blanks or slashes); \(example)")
            }
            username = String(user)
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.contains("/"), !rest.contains("?") else { return .failure("\(quoted(text)) has a path or query, which MQTT URLs do not; \(example)") }
        var host = rest, portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return .failure("\(quoted(text)) opens an IPv6 address it does not close; \(example)") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure("\(quoted(text)) has text after its IPv6 address; \(example)") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure("\(quoted(text)) does not hold a literal IPv6 address between [ and ]; \(example)")
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard rest.hasPrefix("[") || !host.isEmpty && (try? hostName(String(host)).get()) != nil else {
            return .failure("\(quoted(String(host))) is not a host name or address; \(example)")
        }
        var port = MQTTSettings.defaultPort
        if let portText {
            guard portText.count <= 5, !portText.isEmpty, portText.allSatisfy(\.isNumber), let number = Int(portText), (1...65535).contains(number) else {
                return .failure("\(quoted(text)) has no valid port (1 to 65535); \(example)")
            }
            port = number
        }
        return .success(MQTTSettings.Broker(host: String(host), port: port, username: username))
    }

    /// A topic level path without wildcards: `btcpriced`, `home/btc`. MQTT forbids `+` and `#` in
    /// a topic one publishes to, and NUL anywhere; Home Assistant reads a prefix without slashes at its ends.
    static func mqttTopic(_ text: String) -> Result<String, InvalidValue> {
        let example = "use letters, digits, '_', '-' and '/' between levels, such as btcpriced or home/btcpriced"
        guard !text.isEmpty, text.utf8.count <= 128 else { return .failure("\(quoted(text)) must be 1 to 128 characters; \(example)") }
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-/.".contains($0)) }),
              !text.hasPrefix("/"), !text.hasSuffix("/"), !text.contains("//") else {
            return .failure("\(quoted(text)) is not a topic btcpriced publishes under (no wildcards '+' or '#', blanks, empty levels or slashes at the ends); \(example)")
        }
        return .success(text)
    }

    /// A file holding a secret: an absolute path, or unset.
    static func optionalSecretPath(_ text: String) -> Result<String?, InvalidValue> {
        if text.isEmpty { return .success(nil) }
        guard text.hasPrefix("/"), !text.hasSuffix("/") else {
            return .failure("\(quoted(text)) is not an absolute file path; use e.g. /etc/btcpriced/mqtt-password (mode 0640, group btcpriced)")
        }
        return .success(text)
    }
}
