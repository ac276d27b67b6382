import CivilTime

extension Timestamp {
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// The IMF-fixdate an HTTP server sends as `Date`: `Sat, 28 Nov 2026 00:48:03 GMT`.
    public var httpDate: String {
        let (days, msOfDay) = millisecondsSinceEpoch.floorDivided(by: 86_400_000)
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        let seconds = msOfDay / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // 1970-01-01 was a Thursday.
        let weekday = Self.dayNames[Int(days.floorDivided(by: 7).remainder)]
        return "\(weekday), \(two(day)) \(Self.monthNames[Int(month - 1)]) \(year) \(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) GMT"
    }

    /// An HTTP `Date` in the IMF-fixdate form every current server sends (RFC 9110 §5.6.7):
    /// `Sun, 06 Nov 1994 08:49:37 GMT`. The obsolete forms give nil, so the answer is dated by
    /// its arrival instead.
    public init?(httpDate text: String) {
        let b = Array(text.utf8)
        guard b.count == 29, b[3] == 44, b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32, b[19] == 58, b[22] == 58, b[25] == 32,
              String(decoding: b[26..<29], as: UTF8.self) == "GMT",
              let monthIndex = Self.monthNames.firstIndex(of: String(decoding: b[8..<11], as: UTF8.self))
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? { Self.digits(b, range) }
        let month = Int64(monthIndex + 1)
        guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19), let minute = number(20..<22),
              let second = number(23..<25), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        self.init(millisecondsSinceEpoch: (days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)) * 1000)
    }
}
