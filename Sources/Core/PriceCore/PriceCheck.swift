import FoundationEssentials
import Synchronization

/// Checks each venue's price against the quote being served before it may replace it, so one
/// venue's glitch (a flash crash on that venue alone, a ticker stuck at a tiny value, a decimal
/// shift) never reaches the host's bars and prompts. A suspicious price is held, not served;
/// another venue's price within `agreement` of it confirms it, any other served price rejects it.
public final class PriceCheck: Sendable {
    /// A price waiting for a second venue.
    public struct Hold: Sendable, Hashable {
        public let venue: SourceName
        public let price: Price
        public let at: Timestamp
        /// Refused as implausible (more than tenfold), rather than held as a large move.
        public let implausible: Bool
    }

    /// How a served price settled a hold.
    public enum Outcome: Sendable, Hashable {
        /// Another venue's served price agreed with it.
        case confirmed(by: SourceName, price: Price)
        /// The served price disagreed with it.
        case rejected(by: SourceName, price: Price)
        /// No other venue settled it within `recentWithin`; its venue's price is served as the
        /// last quote has aged past the rule.
        case servedUnconfirmed
    }

    /// A settled hold, and whether it is news for the log (a venue stuck at one wrong price is
    /// rejected every cycle, but logged once).
    public struct Settlement: Sendable, Hashable {
        public let hold: Hold
        public let outcome: Outcome
        public let isNews: Bool
    }

    /// A larger move than this, away from a quote less than `recentWithin` old, waits for a
    /// second venue.
    public static let recentWithin = Duration.seconds(60)
    /// Two venues whose prices are this close (as a fraction) say the same thing.
    public static let agreement = Decimal(sign: .plus, exponent: -2, significand: 1)
    /// A price this many times above or below the last quote is a broken feed…
    public static let implausibleFactor = Decimal(10)
    /// …when that quote is less than this old. An older quote may itself have been the glitch of
    /// a single-venue setup; the rule must not keep the daemon from recovering for ever.
    public static let implausibleWithin = Duration.seconds(3600)

    private struct State: Sendable {
        var confirmMove: Decimal?
        var holds: [SourceName: Hold] = [:]
        /// The last price each venue had rejected, so the same wrong price again is no news.
        var lastRejected: [SourceName: Price] = [:]
    }

    private let state: Mutex<State>

    /// `confirmMove`: BTCPRICED_CONFIRM_MOVE as a fraction (0.05), nil when off.
    public init(confirmMove: Decimal?) {
        state = Mutex(State(confirmMove: confirmMove))
    }

    /// A reload's setting, applied to the next price.
    public func use(confirmMove: Decimal?) {
        state.withLock { $0.confirmMove = confirmMove }
    }

    /// Whether some venue's price waits for a second venue: the fetch loop asks one even while a
    /// stream carries the quotes.
    public var awaitsConfirmation: Bool { state.withLock { !$0.holds.isEmpty } }

    /// The price a venue sent that waits for confirmation, if any (`btcctl sources`).
    public func held(_ venue: SourceName) -> Price? { state.withLock { $0.holds[venue]?.price } }

    /// Nil when `price` may be served now; otherwise the venue's failure for this answer, and
    /// whether the hold is news (not the same venue's same price again). `last` is the quote
    /// being served and `age` how old it is (nil when unknown).
    public func vet(_ price: Price, from venue: SourceName, last: Price?, age: Duration?, at now: Timestamp) -> (FetchFailure, isNews: Bool)? {
        state.withLock { state in
            state.holds = state.holds.filter { now.milliseconds(since: $0.value.at) < Self.recentWithin.wholeMilliseconds }
            if state.holds.values.contains(where: { $0.venue != venue && Self.agree(price, $0.price) }) { return nil }
            guard let last, let age, age >= .zero else { return nil }
            let failure: FetchFailure
            if age < Self.implausibleWithin, price.value > last.value * Self.implausibleFactor || price.value * Self.implausibleFactor < last.value {
                failure = .implausiblePrice(price, last: last)
            } else if let limit = state.confirmMove, age < Self.recentWithin, Self.move(from: last, to: price) > limit {
                failure = .unconfirmedPrice(price, last: last)
            } else {
                return nil
            }
            let previous = state.holds[venue]?.price ?? state.lastRejected[venue]
            state.holds[venue] = Hold(venue: venue, price: price, at: now, implausible: failure.isImplausible)
            return (failure, previous.map { !Self.agree(price, $0) } ?? true)
        }
    }

    /// `price` from `venue` is served now: every hold is settled by it.
    public func served(_ price: Price, from venue: SourceName) -> [Settlement] {
        state.withLock { state in
            // The common case, every streamed read: nothing held, nothing to forget.
            if state.holds.isEmpty, state.lastRejected.isEmpty { return [] }
            let settled = state.holds.values.sorted { $0.venue.rawValue < $1.venue.rawValue }.map { hold -> Settlement in
                let outcome: Outcome = !Self.agree(price, hold.price) ? .rejected(by: venue, price: price)
                    : hold.venue == venue ? .servedUnconfirmed : .confirmed(by: venue, price: price)
                guard case .rejected = outcome else {
                    state.lastRejected[hold.venue] = nil
                    return Settlement(hold: hold, outcome: outcome, isNews: true)
                }
                let isNews = state.lastRejected[hold.venue].map { !Self.agree(hold.price, $0) } ?? true
                state.lastRejected[hold.venue] = hold.price
                return Settlement(hold: hold, outcome: outcome, isNews: isNews)
            }
            state.holds = [:]
            if !settled.contains(where: { $0.hold.venue == venue }) { state.lastRejected[venue] = nil }
            return settled
        }
    }

    /// |to − from| ÷ from.
    public static func move(from: Price, to: Price) -> Decimal {
        let difference = to.value - from.value
        return (difference < 0 ? -difference : difference) / from.value
    }

    public static func agree(_ a: Price, _ b: Price) -> Bool { move(from: b, to: a) <= agreement }
}
