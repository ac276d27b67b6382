/// Text from the daemon (and so, at one remove, from exchanges) shown on a terminal: control
/// characters become `?`, so no escape sequence from an exchange's error text reaches the tty.
public enum TerminalText {
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
