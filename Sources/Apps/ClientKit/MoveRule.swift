import WireProtocol

/// `btcctl alert --move 3% --within 1h`: fires once when a fresh price has moved that much from
/// the lowest (up) or highest (down) fresh price of the window before it, and re-arms, as the
/// threshold alerts do, once the move is back under the band: under 2.5 % for a 3 % move with
/// the 0.5 % band. Fed the quotes' own times, so it needs no clock. The window is kept as at
/// most 720 buckets of its lowest and highest price, so a week costs what an hour does; a
/// price leaves the window with its bucket, at most 1/720 of the window late.
public struct MoveRule: Equatable, Sendable {
    public enum Direction: String, Sendable, CaseIterable { case up, down }

    /// What a fresh price did.
    public enum Event: Equatable, Sendable {
        /// The first fresh price: moves count from here.
        case first
        /// Moved by `basisPoints` (hundredths of a percent, truncated) from `from` within the window.
        case moved(Direction, from: String, basisPoints: Int128)
        /// Back under the band: the next such move fires.
        case rearmed(Direction)
    }

    struct Bucket: Equatable, Sendable {
        let start: Int64
        var low: FixedDecimal, high: FixedDecimal
    }

    public let basisPoints: Int128
    public let windowMilliseconds: Int64
    public let directions: [Direction]
    /// The move, in basis points, a fired direction must fall under to fire again.
    public let rearmBelow: Int128
    let bucketMilliseconds: Int64
    var buckets: [Bucket] = []
    var armed: [Direction: Bool] = [:]
    var seen = false

    public static let buckets: Int64 = 720

    /// `band` in basis points; at most half the move, so that a small move can re-arm at all.
    public init(basisPoints: Int128, windowMilliseconds: Int64, directions: [Direction] = Direction.allCases, bandBasisPoints: Int128? = nil) {
        self.basisPoints = basisPoints
        self.windowMilliseconds = windowMilliseconds
        self.directions = directions
        rearmBelow = basisPoints - min(bandBasisPoints ?? 50, basisPoints / 2)
        bucketMilliseconds = max(1000, windowMilliseconds / Self.buckets)
        for direction in directions { armed[direction] = true }
    }

    /// The window as it was likely written: `1h`, `15m`, `2d`, `90s`.
    public var windowText: String {
        let seconds = windowMilliseconds / 1000
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }

    /// A fresh price at `milliseconds` since the epoch (its quote's time); stale ones never come.
    public mutating func observe(_ priceText: String, at milliseconds: Int64) -> [Event] {
        // A quote older than the newest bucket (the daemon's clock stepped back) is left out
        // rather than measured or written into the past.
        guard let price = FixedDecimal(priceText), buckets.last.map({ milliseconds >= $0.start }) ?? true else { return [] }
        buckets.removeAll { $0.start + bucketMilliseconds <= milliseconds - windowMilliseconds }
        var events: [Event] = seen ? [] : [.first]
        seen = true
        if let low = buckets.map(\.low).min(), let high = buckets.map(\.high).max() {
            for direction in directions {
                let from = direction == .up ? low : high
                guard let move = Self.move(direction, from: from, to: price) else { continue }
                if armed[direction] == true, move >= basisPoints {
                    armed[direction] = false
                    events.append(.moved(direction, from: from.text, basisPoints: move))
                } else if armed[direction] == false, move < rearmBelow {
                    armed[direction] = true
                    events.append(.rearmed(direction))
                }
            }
        }
        record(price, at: milliseconds)
        return events
    }

    private mutating func record(_ price: FixedDecimal, at milliseconds: Int64) {
        let start = milliseconds - milliseconds % bucketMilliseconds
        if let last = buckets.indices.last, buckets[last].start == start {
            buckets[last].low = min(buckets[last].low, price)
            buckets[last].high = max(buckets[last].high, price)
        } else {
            buckets.append(Bucket(start: start, low: price, high: price))
        }
    }

    /// The move from `from` in the direction, in basis points truncated toward zero (so a
    /// move counts as 3 % only once it is 3 %), negative against it; nil on overflow.
    static func move(_ direction: Direction, from: FixedDecimal, to: FixedDecimal) -> Int128? {
        guard from.units > 0 else { return nil }
        let (difference, overflowA) = (direction == .up ? to.units : from.units).subtractingReportingOverflow(direction == .up ? from.units : to.units)
        let (scaled, overflowB) = difference.multipliedReportingOverflow(by: 10_000)
        guard !overflowA, !overflowB else { return nil }
        return scaled / from.units
    }
}
