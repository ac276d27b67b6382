import CivilTime

/// A wall-clock instant in whole milliseconds since the Unix epoch, UTC.
/// Quotes carry this: it is what humans and the persisted file see.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) { self.millisecondsSinceEpoch = millisecondsSinceEpoch }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    public func milliseconds(since earlier: Timestamp) -> Int64 {
        millisecondsSinceEpoch - earlier.millisecondsSinceEpoch
    }

    public func adding(milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSinceEpoch: millisecondsSinceEpoch + milliseconds)
    }

    /// RFC 3339, UTC, milliseconds: `2026-11-21T16:00:00.123Z`.
    public var description: String { rfc3339 }

    /// RFC 3339, UTC, whole seconds: `2026-11-21T16:00:00Z`.
    public var rfc3339Seconds: String { String(rfc3339.dropLast(5)) + "Z" }

    public var rfc3339: String {
        let (days, msOfDay) = millisecondsSinceEpoch.floorDivided(by: 86_400_000)
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        let hour = msOfDay / 3_600_000, minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60, millis = msOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millis, 3))Z"
    }

    /// Accepts RFC 3339 with `Z` or a numeric offset and 0–9 fraction digits (kept to ms).
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? { Self.digits(b, range) }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if b[index] == 46 {
            index += 1
            let start = index
            while index < b.count, b[index] >= 48, b[index] <= 57 { index += 1 }
            let count = index - start
            guard (1...9).contains(count), let fraction = number(start..<min(start + 3, index)) else { return nil }
            millis = fraction * [100, 10, 1][min(count, 3) - 1]
        }
        guard index < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        if b[index] == 90 || b[index] == 122 {
            index += 1
        } else if b[index] == 43 || b[index] == 45, index + 6 == b.count, b[index + 3] == 58,
                  let oh = number(index + 1..<index + 3), let om = number(index + 4..<index + 6), oh < 24, om < 60 {
            offsetMinutes = (oh * 60 + om) * (b[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSinceEpoch: seconds * 1000 + millis)
    }
}

extension Timestamp {
    /// The decimal number written in `range` of `bytes`; nil past the end or at a non-digit.
    static func digits(_ bytes: [UInt8], _ range: Range<Int>) -> Int64? {
        guard range.upperBound <= bytes.count else { return nil }
        var value: Int64 = 0
        for i in range {
            guard bytes[i] >= 48, bytes[i] <= 57 else { return nil }
            value = value * 10 + Int64(bytes[i] - 48)
        }
        return value
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = self / divisor, r = self % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
