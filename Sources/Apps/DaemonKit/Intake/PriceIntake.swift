import Logging
import PriceCore

/// The one door every change to the board comes through: polled and streamed prices, a
/// venue's day range, the quote restored at start, saving failing or working again, a
/// reload's policy, and time passing. (The history is a board of its own: it follows these
/// changes, and takes the saved minutes and days and the backfill's candles itself.) The board's mutators are internal to DaemonKit,
/// so there is no other way in. It decides and mutates, and returns what changed
/// (`IntakeChange`), which its followers hear in order: the publisher (the only writer to
/// watchers), systemd's status, the persister, the first-quote log. Nothing on this path
/// renders: the board makes its snapshot when someone asks.
public final class PriceIntake<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public let board: PriceBoard<C>
    private let followers: [any IntakeFollower]
    /// The same gate the fetch loop asks: while it says the stream carries the quotes, a polled
    /// quote does not replace a streamed one.
    private let streamGate: StreamGate<C.Instant>
    /// Dates every answer, polled or streamed, against the venues' clocks.
    public let hostClock: HostClockWatch<C>
    /// Checks each venue's price before it may replace the served one; nil: every price is taken.
    let confirmation: PriceConfirmation?

    /// The history hears every change first (whoever renders next shows this minute's figures),
    /// then `followers`, in this order, on the thread that made it.
    public init(board: PriceBoard<C>, followers: [any IntakeFollower], streamGate: StreamGate<C.Instant> = .closed,
                hostClock: HostClockWatch<C>? = nil, confirmation: PriceConfirmation? = nil, logger: Logger) {
        self.confirmation = confirmation
        self.board = board
        self.followers = [board.history] + followers
        self.streamGate = streamGate
        self.hostClock = hostClock ?? HostClockWatch(clock: board.clock, wallClock: board.wallClock, logger: logger, correcting: board.history.venueClock)
    }

    /// Nil when a venue's `price` may replace the served quote now; otherwise the venue's failure
    /// for this answer (held until another venue confirms it, or refused). The fetch loop asks
    /// before it takes an answer; a stream's trades are asked on arrival.
    func vet(_ price: Price, from venue: SourceName) -> FetchFailure? {
        guard let confirmation else { return nil }
        // The board's own age: never negative, and unknown for a quote stamped in the future.
        let age = board.freshness().ageMilliseconds.map { Duration.milliseconds($0) }
        return confirmation.vet(price, from: venue, last: board.quote?.price, age: age, now: board.wallClock.now())
    }

    /// A fetch cycle's outcome: its reading, dated here on arrival, and its failures.
    @discardableResult
    public func accept(_ report: CycleReport) -> IntakeChange {
        let hostClock = self.hostClock
        // Every cycle, answered or not: a step during an outage is named too.
        if report.reading == nil { hostClock.lookForStep() }
        let polled = report.reading?.stamped(receivedAt: board.wallClock.now()) { hostClock.stamp(origin: $0.time, cacheAge: $0.cacheAge, venueClock: $0.venueClock) }
        var change = IntakeChange(watchersSee: board.record(report, polled: polled, streamCarriesQuotes: streamGate.carriesQuotes(at: board.clock.now)))
        // A polled quote that the board kept out (a stream's trades are newer) is not saved either.
        if let quote = polled?.quote, board.quote == quote { change.kept = served(quote) }
        return tell(change)
    }

    /// A stream's messages, in order of arrival: one message, or all that one read of the
    /// connection found. `admits` is the venue's order rule: late or reordered messages, and a
    /// ticker's close behind a newer trade, never move the price back. Only the newest admitted
    /// price is applied; a superseded trade costs its order check and nothing else.
    @discardableResult
    public func accept(_ events: [StreamEvent], from venue: SourceName, admits: (StreamEvent) -> Bool) -> IntakeChange {
        // A trade goes out as it happens, so its time is the venue's clock then; a ticker's
        // close may carry a trade a minute old.
        var newest: (trade: SourceQuote, stamp: TradeStamp?, venueClock: Timestamp?)?
        var day: DayRange?
        for event in events {
            switch event {
            case .trade(let trade, let stamp):
                if admits(event) { newest = (trade, stamp, stamp?.time) }
            case .tickerClose(let trade, let stamp):
                if admits(event) { newest = (trade, stamp, nil) }
            case .dayRange(let range):
                day = range
            case .alive, .closingSoon:
                continue
            }
        }
        if let trade = newest?.trade, vet(trade.price, from: venue) != nil {
            // Held: the board keeps its quote, and the fetch loop is woken to ask another venue.
            newest = nil
            streamGate.bell?.ring()
        }
        guard newest != nil || day != nil else { return IntakeChange() }
        let quote = newest.map { trade, stamp, venueClock in
            let (timestamp, ageOnArrival) = hostClock.stamp(origin: stamp?.time, venueClock: venueClock)
            return (quote: Quote(price: trade.price, currency: trade.quoteAsset, symbol: trade.symbol, source: venue, timestamp: timestamp),
                    ageOnArrival: ageOnArrival)
        }
        // One change and one publish for the read, however many of its messages changed the
        // board: a second publish within the interval would hold a line and wake the loop again.
        var change = IntakeChange(watchersSee: board.record(streamed: quote, day: day, from: venue))
        if let quote { change.kept = served(quote.quote) }
        return tell(change)
    }

    /// The quote the previous run saved, taken before anyone is served, so there is nobody to
    /// tell. `ageKnown` is false for one stamped in the future (a wrong clock or a copied file):
    /// it is served as stale, of unknown age. It is not saved again, and the first live quote
    /// after it is not logged as a first quote.
    public func restored(quote: Quote, ageKnown: Bool) {
        _ = board.restore(quote, ageKnown: ageKnown)
        tell(IntakeChange(restoredQuote: true))
    }

    /// Saving started failing (`problem`), or works again (nil): the status's last error says so.
    @discardableResult
    public func savingFailed(_ problem: String?) -> IntakeChange {
        tell(IntakeChange(watchersSee: board.persistence(failing: problem)))
    }

    /// Follows the persister's outages until it stops: the persister is built before this door
    /// and never calls back into it.
    public func followSaving(_ problems: AsyncStream<String?>) async {
        for await problem in problems { savingFailed(problem) }
    }

    /// A reload's staleness policy, applied at once.
    @discardableResult
    public func use(_ policy: StalenessPolicy) -> IntakeChange {
        tell(IntakeChange(watchersSee: board.use(policy)))
    }

    /// Time alone may have changed the state (the quote turned stale): watchers and systemd hear
    /// it. While the quote is not fresh, systemd's status is brought up to date even without a
    /// change, as its text shows the growing age.
    @discardableResult
    public func timePassed() -> IntakeChange {
        if board.refreshState() { return tell(IntakeChange(watchersSee: true)) }
        return tell(IntakeChange(statusAged: board.freshness().state != .fresh))
    }

    /// The live quote the board now serves: the confirmation's reference from now on.
    private func served(_ quote: Quote) -> Quote {
        confirmation?.served(quote)
        return quote
    }

    @discardableResult
    private func tell(_ change: IntakeChange) -> IntakeChange {
        guard !change.isEmpty else { return change }
        for follower in followers { follower.follow(change) }
        return change
    }
}
