import DaemonConfig
import JSONText
import MQTTPublish
import Testing

/// The MQTT client's bytes against MQTT 3.1.1 (OASIS, section 3), what it accepts from a
/// broker, Home Assistant's discovery config, and the settings that turn it on.
@Suite("MQTT: packets, the broker's answers, discovery, settings")
struct MQTTTests {
    @Test func connectCarriesTheWillTheAccountAndTheKeepAlive() {
        let bytes = MQTTPacket.connect(.init(clientID: "c", keepAliveSeconds: 60,
                                             will: .init(topic: "t/a", payload: "offline", retain: true),
                                             username: "u", password: "p"))
        // Fixed header, "MQTT" level 4, flags: user, password, will retain, will, clean session.
        let header: [UInt8] = [0x10, 33, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0b1110_0110, 0, 60]
        let payload: [UInt8] = [0, 1, 0x63, 0, 3] + Array("t/a".utf8) + [0, 7] + Array("offline".utf8) + [0, 1, 0x75, 0, 1, 0x70]
        #expect(bytes == header + payload, "\(bytes)")
        let anonymous = MQTTPacket.connect(.init(clientID: "c", keepAliveSeconds: 30, will: nil, username: nil, password: nil))
        #expect(anonymous == [0x10, 13, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0b0000_0010, 0, 30, 0, 1, 0x63], "\(anonymous)")
    }

    @Test func publishEncodesTheRemainingLengthInBase128() {
        let small = MQTTPacket.publish(.init(topic: "a/b", payload: "{}", retain: true))
        #expect(small == [0x31, 7, 0, 3, 0x61, 0x2F, 0x62, 0x7B, 0x7D], "\(small)")
        // Remaining lengths at the boundaries of one, two and three length bytes (spec table 2.4).
        for (payloadLength, lengthBytes) in [(124, [127] as [UInt8]), (125, [0x80, 1]), (16_380, [0xFF, 0x7F]), (16_381, [0x80, 0x80, 1])] {
            let bytes = MQTTPacket.publish(.init(topic: "t", payload: String(repeating: "x", count: payloadLength), retain: false))
            #expect(bytes[0] == 0x30)
            #expect(Array(bytes[1...lengthBytes.count]) == lengthBytes, "payload \(payloadLength): \(Array(bytes[1...lengthBytes.count]))")
            #expect(bytes.count == 1 + lengthBytes.count + 3 + payloadLength)
        }
        #expect(MQTTPacket.pingRequest == [0xC0, 0])
        #expect(MQTTPacket.disconnect == [0xE0, 0])
    }

    @Test func aBrokerMaySendOnlyConnackAndPingresp() throws {
        #expect(try MQTTInbound.parse([0x20, 2, 0, 0])?.packet == .connectionAccepted(sessionPresent: false))
        #expect(try MQTTInbound.parse([0x20, 2, 1, 0, 0xD0])?.length == 4)
        #expect(try MQTTInbound.parse([0xD0, 0])?.packet == .pingResponse)
        let refused = try MQTTInbound.parse([0x20, 2, 0, 4])?.packet
        #expect(refused == .connectionRefused(.init(code: 4)))
        #expect("\(MQTTInbound.ConnectRefusal(code: 5))".contains("not authorized (code 5)"))
        // Incomplete: wait for more.
        #expect(try MQTTInbound.parse([]) == nil)
        #expect(try MQTTInbound.parse([0x20]) == nil)
        #expect(try MQTTInbound.parse([0x20, 2, 0]) == nil)
        // Anything else closes the connection, with what it was.
        for (bytes, says) in [([0x30, 5, 0, 1, 0x74, 0x68, 0x69], "packet type 3"), ([0x20, 3, 0, 0, 0], "a CONNACK of 3 bytes"),
                              ([0xD0, 1, 0], "a PINGRESP of 1 bytes"), ([0x20, 2, 0x80, 0], "reserved flags")] as [([UInt8], String)] {
            #expect(throws: MQTTInbound.ProtocolError.self) { try MQTTInbound.parse(bytes) }
            do { _ = try MQTTInbound.parse(bytes) } catch { #expect(error.description.contains(says), "\(error.description)") }
        }
    }

    @Test func discoveryMakesAMonetarySensorThatIsUnavailableUnlessFresh() throws {
        let publishing = MQTTPublishing(host: "127.0.0.1", port: 1883, username: nil, password: nil, topicRoot: "home/btc",
                                        discoveryPrefix: "homeassistant", currency: "EUR", version: "0.1.0")
        #expect(publishing.stateTopic == "home/btc/eur/state")
        #expect(publishing.availabilityTopic == "home/btc/eur/availability")
        #expect(publishing.discoveryTopic == "homeassistant/sensor/home_btc_eur/price/config")
        let config = try JSONValue(parsing: HomeAssistantDiscovery.config(publishing))
        #expect(config["device_class"]?.stringValue == "monetary")
        #expect(config["unit_of_measurement"]?.stringValue == "EUR")
        #expect(config["state_topic"]?.stringValue == "home/btc/eur/state")
        #expect(config["value_template"]?.stringValue == "{{ value_json.price }}")
        #expect(config["unique_id"]?.stringValue == "home_btc_eur_price")
        #expect(config["expire_after"]?.numberLiteral == "150")
        let availability = config["availability"]?.arrayElements ?? []
        #expect(availability.map { $0["topic"]?.stringValue } == ["home/btc/eur/availability", "home/btc/eur/state"])
        #expect(availability.last?["value_template"]?.stringValue == "{{ 'online' if value_json.state == 'fresh' else 'offline' }}")
        #expect(config["availability_mode"]?.stringValue == "all")
    }

    func load(_ file: String) throws(ConfigError) -> DaemonSettings {
        try SettingsLoader.load(.init(environment: [:], file: ("/etc/btcpriced/btcpriced.conf", file)))
    }

    func error(_ file: String) -> String {
        do { _ = try load(file); return "no error" } catch { return error.description }
    }

    @Test func theBrokerURLNamesHostPortAndUserButNeverAPassword() throws {
        #expect(try load("").mqtt.broker == nil, "off by default")
        let plain = try load("BTCPRICED_MQTT_URL=mqtt://127.0.0.1\n").mqtt
        #expect(plain.broker?.description == "mqtt://127.0.0.1:1883")
        #expect(plain.topicRoot == "btcpriced")
        #expect(plain.discoveryPrefix == "homeassistant")
        #expect(try load("BTCPRICED_MQTT_URL=mqtt://btc@nas.lan:1884/\n").mqtt.broker?.description == "mqtt://btc@nas.lan:1884")
        #expect(try load("BTCPRICED_MQTT_URL=mqtt://[::1]:1883\n").mqtt.broker?.host == "::1")
        let cases: [(String, String)] = [
            ("mqtt://btc:secret@127.0.0.1", "holds a password; put it in a file named by BTCPRICED_MQTT_PASSWORD_FILE"),
            ("mqtts://127.0.0.1", "\"mqtts\" is not supported"),
            ("127.0.0.1:1883", "is not an MQTT URL"),
            ("mqtt://127.0.0.1:0", "has no valid port"),
            ("mqtt://127.0.0.1:1883/topic", "has a path or query"),
            ("mqtt://bad host", "is not a host name"),
            ("mqtt://[::1", "opens an IPv6 address it does not close"),
        ]
        for (url, says) in cases {
            let message = error("BTCPRICED_MQTT_URL=\(url)\n")
            #expect(message.contains("BTCPRICED_MQTT_URL") && message.contains(says), "\(url): \(message)")
            #expect(!message.contains("secret"), "the error never repeats a password: \(message)")
        }
        #expect(error("BTCPRICED_MQTT_TOPIC=btc/#\n").contains("no wildcards"))
        #expect(error("BTCPRICED_MQTT_DISCOVERY_PREFIX=/homeassistant\n").contains("slashes at the ends"))
    }

    @Test func checkConfigSaysWhereAndAsWhomItPublishes() {
        func lines(_ environment: [String: String]) -> [String] {
            CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-mqtt-check"]), environment: environment).lines
        }
        #expect(!lines([:]).contains { $0.hasPrefix("mqtt:") }, "off: no line")
        let on = lines(["BTCPRICED_MQTT_URL": "mqtt://btc@127.0.0.1:1884", "BTCPRICED_CURRENCY": "EUR", "BTCPRICED_MQTT_TOPIC": "home/btc"])
        #expect(on.contains("mqtt: mqtt://btc@127.0.0.1:1884 (no password); state on home/btc/eur/state, Home Assistant discovery under homeassistant/"), "\(on)")
    }

    @Test func thePasswordComesFromAFileOrTheSystemdCredential() throws {
        let credentials = ["CREDENTIALS_DIRECTORY": "/run/credentials/btcpriced.service"]
        func resolve(_ file: String, env: [String: String] = [:], files: [String: String]) throws(ConfigError) -> MQTTSettings {
            try MQTTPasswordResolver.resolve(try load(file), environment: env) { files[$0] }.mqtt
        }
        let url = "BTCPRICED_MQTT_URL=mqtt://btc@127.0.0.1\n"
        #expect(try resolve(url + "BTCPRICED_MQTT_PASSWORD_FILE=/etc/btcpriced/mqtt\n", files: ["/etc/btcpriced/mqtt": "correct horse\n"]).password == "correct horse")
        #expect(try resolve(url, env: credentials, files: ["/run/credentials/btcpriced.service/mqtt-password": "s3cret"]).password == "s3cret")
        #expect(try resolve(url, env: credentials, files: [:]).password == nil, "no credential passed: no password")
        #expect(try resolve("", env: credentials, files: ["/run/credentials/btcpriced.service/mqtt-password": "s3cret"]).password == nil,
                "MQTT off: nothing is read")
        do {
            _ = try resolve(url + "BTCPRICED_MQTT_PASSWORD_FILE=/etc/btcpriced/missing\n", files: [:])
            Issue.record("a missing password file is an error")
        } catch { #expect(error.description.contains("/etc/btcpriced/missing does not exist"), "\(error)") }
        do {
            _ = try resolve("BTCPRICED_MQTT_URL=mqtt://127.0.0.1\n", env: credentials, files: ["/run/credentials/btcpriced.service/mqtt-password": "s3cret"])
            Issue.record("a password needs a user")
        } catch {
            #expect(error.description.contains("names no user"), "\(error)")
            #expect(!error.description.contains("s3cret"))
        }
    }
}
