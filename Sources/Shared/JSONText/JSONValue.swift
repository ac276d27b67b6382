/// A JSON document that keeps numbers as their literal text, so that `68901.23` reaches
/// `Decimal` exactly instead of passing through `Double`. No Foundation: `btcctl` links this.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written in the document.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberLiteral: String? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    public var arrayElements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The strings of an array, or nil when this is not an array.
    public var stringElements: [String]? { arrayElements?.compactMap(\.stringValue) }

    public var firstArrayElement: JSONValue? { arrayElements?.first }
}

/// One object member.
public struct JSONMember: Sendable, Hashable {
    public let key: String
    public let value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// An object's members in document order, written as an (ordered) dictionary literal:
/// `.object(["price": .string("1"), "state": .string("fresh")])`. A struct rather than an
/// array of tuples: tuple metadata costs btcctl a runtime type lookup at every start.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public var members: [JSONMember]

    public init(members: [JSONMember]) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { JSONMember(key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}
