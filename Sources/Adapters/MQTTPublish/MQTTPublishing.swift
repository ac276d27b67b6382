/// Where and what btcpriced publishes over MQTT: the broker, the account, and the topics for
/// one currency. Built by the composition root from the settings.
public struct MQTTPublishing: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String?
    /// Read from a file or a systemd credential, never from the command line or the environment.
    public var password: String?
    /// The topics' root (`btcpriced`): a currency's topics are `<root>/<currency>/…`.
    public var topicRoot: String
    /// Home Assistant's discovery prefix (`homeassistant`).
    public var discoveryPrefix: String
    /// ISO 4217, upper case.
    public var currency: String
    public var version: String

    public init(host: String, port: Int, username: String?, password: String?, topicRoot: String, discoveryPrefix: String,
                currency: String, version: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.topicRoot = topicRoot
        self.discoveryPrefix = discoveryPrefix
        self.currency = currency
        self.version = version
    }

    /// Retained: the `status` reply's JSON, as `watch` lines carry it.
    public var stateTopic: String { "\(topicRoot)/\(currency.lowercased())/state" }
    /// Retained `online`, and `offline` at a clean stop or, as the last will, when the connection drops.
    public var availabilityTopic: String { "\(topicRoot)/\(currency.lowercased())/availability" }
    /// Home Assistant's object id rules: letters, digits, `_` and `-`.
    public var nodeID: String {
        String("\(topicRoot)_\(currency.lowercased())".map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
    }
    public var discoveryTopic: String { "\(discoveryPrefix)/sensor/\(nodeID)/price/config" }

    /// How often the state is sent again when nothing changed, which also keeps the
    /// connection alive; Home Assistant expires the sensor after several of these are missed.
    public static let refresh = Duration.seconds(30)
    public static let expireAfterSeconds = 150
    /// The keep-alive the broker enforces (it drops a client silent for one and a half of these).
    public static let keepAlive = Duration.seconds(60)
}
