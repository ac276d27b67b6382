import FoundationEssentials

/// One UTC minute of prices: open, high, low and close, exact.
public struct MinuteBar: Sendable, Hashable {
    /// Minutes since the Unix epoch.
    public let minute: Int64
    public private(set) var open: Decimal
    public private(set) var high: Decimal
    public private(set) var low: Decimal
    public private(set) var close: Decimal

    public init(minute: Int64, open: Decimal, high: Decimal, low: Decimal, close: Decimal) {
        self.minute = minute
        self.open = open
        self.high = high
        self.low = low
        self.close = close
    }

    init(minute: Int64, price: Decimal) {
        self.init(minute: minute, open: price, high: price, low: price, close: price)
    }

    mutating func add(_ price: Decimal) {
        high = max(high, price)
        low = min(low, price)
        close = price
    }

    /// Whether the four prices are consistent: low ≤ open, close ≤ high, all positive.
    public var isConsistent: Bool {
        low > 0 && low <= high && (low...high).contains(open) && (low...high).contains(close)
    }

    public static func minute(of time: Timestamp) -> Int64 {
        time.millisecondsSinceEpoch.floorDivided(by: 60_000).quotient
    }
}
