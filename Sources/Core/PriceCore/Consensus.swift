import FoundationEssentials

/// When answers from several venues count as agreeing.
public struct ConsensusRule: Sendable, Hashable {
    /// The largest accepted distance from the median, as a fraction (`0.01` is 1 %).
    public var maximumDeviation: Decimal
    /// How many venues must agree for a cycle to produce a quote.
    public var minimumAgreeing: Int

    public init(maximumDeviation: Decimal, minimumAgreeing: Int) {
        self.maximumDeviation = maximumDeviation
        self.minimumAgreeing = max(minimumAgreeing, 1)
    }
}

/// One venue's answer in a consensus round.
public struct VenueAnswer: Sendable, Hashable {
    public let source: SourceName
    public let quote: SourceQuote

    public init(source: SourceName, quote: SourceQuote) {
        self.source = source
        self.quote = quote
    }
}

public struct ConsensusOutcome: Sendable, Hashable {
    /// The median of the agreeing answers; nil when too few agreed.
    public let price: Price?
    public let agreeing: [SourceName]
    public let outliers: [SourceName]
    /// Highest minus lowest agreeing price.
    public let spread: Decimal?
    /// How many had to agree.
    public let required: Int
}

/// Median and outlier rules, in exact decimal arithmetic.
public enum Consensus {
    /// The middle price; for an even count, the mean of the two middle prices. Halving a decimal
    /// adds at most one digit, so the mean is exact for any price with fewer than 38 significant
    /// digits (Decimal's precision); beyond that Decimal rounds to nearest.
    public static func median(_ prices: [Price]) -> Price? {
        let sorted = prices.sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return Price(uncheckedMean: sorted[middle - 1], sorted[middle])
    }

    /// Excludes answers further than the rule allows from the median of all answers; the quote is
    /// the median of those left, if at least `minimumAgreeing` are.
    public static func evaluate(_ answers: [VenueAnswer], rule: ConsensusRule) -> ConsensusOutcome {
        guard let center = median(answers.map(\.quote.price)) else {
            return ConsensusOutcome(price: nil, agreeing: [], outliers: [], spread: nil, required: rule.minimumAgreeing)
        }
        let tolerance = center.value * rule.maximumDeviation
        var agreeing: [VenueAnswer] = [], outliers: [SourceName] = []
        for answer in answers {
            let distance = answer.quote.price.value - center.value
            if distance.magnitude > tolerance { outliers.append(answer.source) } else { agreeing.append(answer) }
        }
        guard agreeing.count >= rule.minimumAgreeing else {
            return ConsensusOutcome(price: nil, agreeing: agreeing.map(\.source), outliers: outliers, spread: nil, required: rule.minimumAgreeing)
        }
        let prices = agreeing.map(\.quote.price)
        let spread = (prices.max()?.value ?? 0) - (prices.min()?.value ?? 0)
        return ConsensusOutcome(price: median(prices), agreeing: agreeing.map(\.source), outliers: outliers, spread: spread, required: rule.minimumAgreeing)
    }
}
