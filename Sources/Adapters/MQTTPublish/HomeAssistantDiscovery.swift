import JSONText

/// Home Assistant's MQTT discovery config for a currency's price: a `monetary` sensor in the
/// currency, read from the state topic's JSON, with the `status` fields as attributes. It is
/// available only while btcpriced is connected (the availability topic and its last will) and
/// the quote is fresh (the state's own `state`), so a stale price shows as unavailable, never
/// as a number; `expire_after` covers a daemon that hangs with its connection open.
public enum HomeAssistantDiscovery {
    public static func config(_ publishing: MQTTPublishing) -> String {
        let node = publishing.nodeID
        let availability: JSONValue = .array([
            .object(["topic": .string(publishing.availabilityTopic)]),
            .object(["topic": .string(publishing.stateTopic),
                     "value_template": .string("{{ 'online' if value_json.state == 'fresh' else 'offline' }}")]),
        ])
        let device: JSONValue = .object([
            "identifiers": .array([.string(node)]),
            "name": .string("btcpriced \(publishing.currency)"),
            "manufacturer": .string("btcpriced"),
            "model": .string("BTC price daemon"),
            "sw_version": .string(publishing.version),
        ])
        let config: JSONValue = .object([
            "name": .string("BTC price"),
            "unique_id": .string("\(node)_price"),
            "state_topic": .string(publishing.stateTopic),
            "value_template": .string("{{ value_json.price }}"),
            "json_attributes_topic": .string(publishing.stateTopic),
            "unit_of_measurement": .string(publishing.currency),
            "device_class": .string("monetary"),
            "suggested_display_precision": .number("2"),
            "expire_after": .number(String(MQTTPublishing.expireAfterSeconds)),
            "availability": availability,
            "availability_mode": .string("all"),
            "device": device,
            "origin": .object(["name": .string("btcpriced"), "sw_version": .string(publishing.version)]),
        ])
        return config.encoded
    }
}
