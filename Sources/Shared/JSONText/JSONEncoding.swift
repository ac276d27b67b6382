extension JSONValue {
    /// Compact, single-line JSON: safe to frame by newline on the wire.
    public var encoded: String {
        var out = ""
        encode(into: &out)
        return out
    }

    public func encode(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let literal): out += literal
        case .string(let value): JSONValue.appendQuoted(value, to: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.encode(into: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.appendQuoted(member.key, to: &out)
                out += ":"
                member.value.encode(into: &out)
            }
            out += "}"
        }
    }

    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Convenience for optional strings that encode as `null`.
    public static func string(orNull value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }
}
