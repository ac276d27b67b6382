/// Text that may carry an exchange's or a user's bytes, made safe for one line of a log, a
/// notify field or a reply: control characters escaped, length bounded.
public enum UntrustedText {
    public static let defaultLimit = 400

    /// `\n`, `\r`, `\t` and other control characters written as escapes; cut at `limit`
    /// characters with `…` so a 1 MB value costs one short line.
    public static func oneLine(_ text: String, limit: Int = defaultLimit) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
