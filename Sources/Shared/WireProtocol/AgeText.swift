/// Ages as people read them: `0.4s`, `42s`, `3m12s`, `2h05m`, `3d04h` (or spaced: `3m 12s`).
/// One spelling for STATUS= and btcctl.
public enum AgeText {
    public static func compact(milliseconds: Int64, spaced: Bool = false) -> String {
        let seconds = max(0, milliseconds) / 1000, gap = spaced ? " " : ""
        if seconds < 10 { return "\(seconds).\(max(0, milliseconds) % 1000 / 100)s" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(gap)\(twoDigits(seconds % 60))s" }
        if seconds < 86_400 { return "\(seconds / 3600)h\(gap)\(twoDigits(seconds / 60 % 60))m" }
        return "\(seconds / 86_400)d\(gap)\(twoDigits(seconds / 3600 % 24))h"
    }

    static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
