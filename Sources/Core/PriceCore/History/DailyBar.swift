import FoundationEssentials

/// One UTC day of prices: open, high, low and close, exact.
public struct DailyBar: Sendable, Hashable {
    /// Days since the Unix epoch.
    public let day: Int64
    public let open: Decimal
    public let high: Decimal
    public let low: Decimal
    public let close: Decimal

    public init(day: Int64, open: Decimal, high: Decimal, low: Decimal, close: Decimal) {
        (self.day, self.open, self.high, self.low, self.close) = (day, open, high, low, close)
    }

    /// low ≤ open, close ≤ high, all positive.
    public var isConsistent: Bool {
        low > 0 && low <= high && (low...high).contains(open) && (low...high).contains(close)
    }

    /// `2026-11-28`.
    public var date: String { Self.date(of: day) }

    public static func date(of day: Int64) -> String {
        String(Timestamp(millisecondsSinceEpoch: day * 86_400_000).rfc3339Seconds.prefix(10))
    }

    /// The day of `2026-11-28`; nil for anything else.
    public static func day(of date: some StringProtocol) -> Int64? {
        guard date.utf8.count == 10, let midnight = Timestamp(rfc3339: date + "T00:00:00Z") else { return nil }
        return midnight.millisecondsSinceEpoch / 86_400_000
    }

    public static func day(of time: Timestamp) -> Int64 {
        time.millisecondsSinceEpoch.floorDivided(by: 86_400_000).quotient
    }
}
