#if canImport(Glibc)
import Glibc
#endif

/// UTC calendar dates for the client, which links no Foundation: days since the Unix epoch to
/// `2026-11-29`, after Howard Hinnant's `civil_from_days`.
public enum CivilDate {
    /// Today's day, by the host's clock.
    static func today() -> Int64 {
        Int64(time(nil)).floorDivided(by: 86_400)
    }

    /// `2026-11-29` for its day since the epoch.
    public static func text(ofDay day: Int64) -> String {
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(dayOfMonth, 2))"
    }
}

extension Int64 {
    /// Rounds toward negative infinity, as days before 1970 need.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
