import WireProtocol

/// `btcctl alert`'s thresholds with hysteresis: each fires once when a fresh price reaches it,
/// and re-arms only once the price is back beyond its band, so a price hovering at the line
/// does not fire again and again. A threshold already reached when the first price is seen
/// has not been crossed: it waits, disarmed, for the price to come back.
public struct AlertRule: Equatable, Sendable {
    public enum Direction: String, Sendable { case above, below }

    /// The band: a share of the threshold in basis points (`0.5%` is 50), or an amount of money.
    public enum Band: Equatable, Sendable {
        case basisPoints(Int128)
        case amount(String)

        public static let standard = Band.basisPoints(50)

        /// `0.5%`, `1%`, `0%`, or an amount such as `250`; nil otherwise.
        public init?(_ text: String) {
            if text.hasSuffix("%") {
                // Whole hundredths of a percent, up to 50 %.
                let number = text.dropLast()
                guard !number.hasPrefix("-"), let percent = FixedDecimal(number), percent.units % (Self.one / 100) == 0,
                      percent.units / (Self.one / 100) <= 5000 else { return nil }
                self = .basisPoints(percent.units / (Self.one / 100))
            } else {
                guard let amount = FixedDecimal(text), amount.units >= 0, !text.hasPrefix("-") else { return nil }
                self = .amount(text)
            }
        }

        static let one = FixedDecimal("1")!.units

        /// The band's width at `threshold`, in FixedDecimal units.
        func width(at threshold: FixedDecimal) -> Int128 {
            switch self {
            case .basisPoints(let basisPoints): threshold.units / 10_000 * basisPoints
            case .amount(let text): FixedDecimal(text)?.units ?? 0
            }
        }
    }

    /// One threshold and whether it may fire.
    public struct Line: Equatable, Sendable {
        public let direction: Direction
        /// Exact decimal text, as given.
        public let threshold: String
        let value: FixedDecimal
        /// What the price must come back beyond before the line fires again.
        public let rearmAt: FixedDecimal
        /// Nil until the first fresh price; false once fired, until the price is back past `rearmAt`.
        public var armed: Bool?

        init(_ direction: Direction, _ threshold: String, band: Band) {
            self.direction = direction
            self.threshold = threshold
            value = FixedDecimal(threshold) ?? FixedDecimal(units: 0)
            let width = band.width(at: value)
            rearmAt = FixedDecimal(units: direction == .above ? value.units - width : value.units + width)
        }

        func reached(_ price: FixedDecimal) -> Bool { direction == .above ? price >= value : price <= value }
        /// Strictly beyond the band, so that a price resting on a line with no band cannot fire twice.
        func backPastBand(_ price: FixedDecimal) -> Bool { direction == .above ? price < rearmAt : price > rearmAt }
    }

    /// What a fresh price did to one line.
    public enum Event: Equatable, Sendable {
        /// The price reached the threshold: act now.
        case crossed(Line)
        /// The first price is already past the threshold: nothing fires until it is back.
        case alreadyPast(Line)
        /// Back past the band: the next crossing fires.
        case rearmed(Line)
    }

    public private(set) var lines: [Line]

    public init(thresholds: PriceThresholds, band: Band = .standard) {
        lines = []
        if let above = thresholds.above { lines.append(Line(.above, above, band: band)) }
        if let below = thresholds.below { lines.append(Line(.below, below, band: band)) }
    }

    /// A fresh price; stale ones never reach here. Returns what changed, in the lines' order.
    public mutating func observe(_ priceText: String) -> [Event] {
        guard let price = FixedDecimal(priceText) else { return [] }
        var events: [Event] = []
        for index in lines.indices {
            let line = lines[index]
            switch line.armed {
            case nil:
                let past = line.reached(price)
                lines[index].armed = !past
                if past { events.append(.alreadyPast(lines[index])) }
            case true?:
                if line.reached(price) {
                    lines[index].armed = false
                    events.append(.crossed(lines[index]))
                }
            case false?:
                if line.backPastBand(price) {
                    lines[index].armed = true
                    events.append(.rearmed(lines[index]))
                }
            }
        }
        return events
    }
}
