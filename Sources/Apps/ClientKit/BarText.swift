import WireProtocol

/// Text a status bar parses. What the daemon says (a venue's error text, at one remove from an
/// exchange, and anything a program listening on the socket path chooses) is escaped in the
/// grammar of the bar that reads it next, never read as markup or as a bar's tag.
enum BarText {
    /// One field of untrusted text: control characters, newlines included, become spaces (a
    /// newline would split an i3blocks block or a tooltip line), at most `limit` characters.
    static func field(_ text: String, limit: Int = 160) -> String {
        let scalars = text.unicodeScalars
        let clean = scalars.contains(where: TerminalText.isControl)
            ? String(String.UnicodeScalarView(scalars.map { TerminalText.isControl($0) ? " " : $0 })) : text
        return clean.count > limit ? String(clean.prefix(limit - 1)) + "…" : clean
    }

    /// Pango markup, as Waybar reads `text` and `tooltip` and i3blocks reads a block with
    /// `markup=pango`: the five characters markup gives meaning to, as entities.
    static func pango(_ text: String) -> String { MarkupText.escaped(text) }

    /// polybar reads `%{…}` as formatting tags: untrusted text keeps no `%` and no braces, so no
    /// tag can form (a price, a currency sign and "(stale)" have none).
    static func polybar(_ text: String) -> String {
        guard text.contains(where: { $0 == "%" || $0 == "{" || $0 == "}" }) else { return text }
        return String(text.filter { $0 != "%" && $0 != "{" && $0 != "}" })
    }
}
