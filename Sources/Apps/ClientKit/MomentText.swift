import CivilTime
import WireProtocol

/// The moment `btcctl history --at` asks about, as people write it: `2024-03-01T12:00Z`,
/// `2024-03-01T12:00:00Z`, a day (`2024-03-01`, its first second) or Unix seconds. Always
/// UTC: an offset other than `Z` is refused rather than guessed.
enum MomentText {
    static let examples = "2024-03-01T12:00Z, 2024-03-01 or Unix seconds"

    static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        if !bytes.isEmpty, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard case .success(let seconds) = PriceAtQuery.parse(seconds: text) else { return nil }
            return seconds
        }
        guard bytes.count >= 10, DailyQuery.isDate(String(text.prefix(10))),
              let year = Int64(text.prefix(4)), let month = Int64(text.dropFirst(5).prefix(2)), let day = Int64(text.dropFirst(8).prefix(2)),
              day <= CivilDate.daysIn(month: month, year: year) else { return nil }
        let midnight = CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400
        guard bytes.count > 10 else { return midnight }
        // THH:MM, then :SS, then Z.
        var rest = text.dropFirst(10)
        guard rest.first == "T" || rest.first == "t" else { return nil }
        rest = rest.dropFirst()
        if rest.last == "Z" || rest.last == "z" { rest = rest.dropLast() }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.utf8.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int64(parts[0]), let minute = Int64(parts[1]), hour < 24, minute < 60 else { return nil }
        let second = parts.count == 3 ? Int64(parts[2]) ?? 60 : 0
        guard second < 60 else { return nil }
        return midnight + hour * 3600 + minute * 60 + second
    }

    /// `2024-03-01T12:00:00Z` for Unix seconds.
    static func text(_ seconds: Int64) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - day * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return CivilDate.text(ofDay: day) + "T" + two(second / 3600) + ":" + two(second / 60 % 60) + ":" + two(second % 60) + "Z"
    }

    /// A quote's time as the daemon writes it (`2026-11-21T16:00:00.123Z`) in milliseconds
    /// since the epoch; nil for anything else.
    static func milliseconds(_ timestamp: String) -> Int64? {
        guard timestamp.utf8.count == 24, timestamp.hasSuffix("Z"), timestamp.dropFirst(19).first == ".",
              let seconds = seconds(String(timestamp.prefix(19)) + "Z"),
              let fraction = Int64(timestamp.dropFirst(20).prefix(3)), timestamp.dropFirst(20).prefix(3).allSatisfy(\.isASCIIDigit) else { return nil }
        return seconds * 1000 + fraction
    }
}
