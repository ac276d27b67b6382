/// Reads the MQTT password: `BTCPRICED_MQTT_PASSWORD_FILE`, else the systemd credential
/// `mqtt-password` when systemd passed one. Errors name the file, never its content.
public enum MQTTPasswordResolver {
    public static func resolve(_ settings: DaemonSettings, environment: [String: String],
                        read: (String) throws -> String?) throws(ConfigError) -> DaemonSettings {
        var settings = settings
        guard let broker = settings.mqtt.broker else { return settings }
        var password: String?
        if let path = settings.mqtt.passwordFile {
            password = try secret(fromFile: path, named: "BTCPRICED_MQTT_PASSWORD_FILE", required: true, read: read)
        } else if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            password = try secret(fromFile: directory + "/" + MQTTSettings.credential, named: "the systemd credential \(MQTTSettings.credential)",
                                  required: false, read: read)
        }
        if password != nil, broker.username == nil {
            throw ConfigError("an MQTT password is set but BTCPRICED_MQTT_URL names no user; MQTT sends a password only with a user name: use mqtt://USER@\(broker.host):\(broker.port)")
        }
        settings.mqtt.password = password
        return settings
    }

    private static func secret(fromFile path: String, named origin: String, required: Bool,
                               read: (String) throws -> String?) throws(ConfigError) -> String? {
        guard let line = try SecretFile.firstLine(path, named: origin, what: "the password", required: required, read: read) else { return nil }
        guard !line.isEmpty, line.utf8.count <= 1024, !line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ConfigError("\(origin): the password in \(path) is empty, longer than 1024 bytes or holds control characters; write it on the first line")
        }
        return line
    }
}
