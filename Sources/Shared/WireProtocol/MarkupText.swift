/// Untrusted text for markup that gives `& < > ' "` meaning: HTML (the dashboard) and Pango
/// (Waybar) alike, as entities.
public enum MarkupText {
    public static func escaped(_ text: String) -> String {
        guard text.contains(where: { "&<>'\"".contains($0) }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "'": escaped += "&#39;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
