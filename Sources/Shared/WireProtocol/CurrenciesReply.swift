import JSONText

/// `{"currencies":{"USD":STATUS,"EUR":STATUS,…}}`: the status object of every currency served,
/// by its ISO 4217 code, the primary first. (A status names its market's quote asset, `USDT`
/// for Binance's USD market; the key is the currency served.)
public struct CurrenciesReply: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let code: String
        public let status: StatusMessage

        public init(code: String, status: StatusMessage) {
            self.code = code
            self.status = status
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public var json: JSONValue {
        .object(["currencies": .object(JSONObject(members: entries.map { JSONMember(key: $0.code, value: $0.status.json) }))])
    }
    public var line: String { json.encoded + "\n" }

    /// Reads a reply line's JSON; throws the reply's own error, or why it is not this shape.
    public init(json: JSONValue) throws(ErrorReply) {
        if let error = ErrorReply(json: json) { throw error }
        guard case .object(let currencies)? = json["currencies"] else { throw .badRequest("the reply has no currencies object") }
        var entries: [Entry] = []
        for member in currencies.members { entries.append(Entry(code: member.key, status: try StatusMessage(json: member.value))) }
        self.entries = entries
    }
}
