import PriceCore
import Synchronization
import WireProtocol

/// The daemon's current knowledge, changed only through `PriceIntake` (its mutators are
/// internal, so the door is the only way in). A change updates the inputs and the state key, nothing
/// more; the snapshot (and its rendered lines) is made from them when something first asks
/// for it: a request, the publisher, systemd. So a stream's trade costs a few stores, not a
/// rendering. Socket connections read on event-loop threads: one short critical section.
public final class PriceBoard<C: Clock>: Sendable where C.Duration == Duration {
    public typealias Current = Snapshot<C.Instant>

    /// The inputs a snapshot is made from. `age` comes first: it differs with every trade, so
    /// the derived `==` stops there before comparing prices.
    private struct Inputs: Sendable, Equatable {
        var age = QuoteAge<C.Instant>(receivedAt: nil)
        var quote: Quote? { didSet { if quote?.source != oldValue?.source { staleLimit = policy.limit(for: quote) } } }
        var transport = Transport.poll
        var failureSummary: String? { didSet { if failureSummary != oldValue { problems = Self.problems(failureSummary, persistenceProblem) } } }
        var ageKnown = true
        var persistenceProblem: String? { didSet { if persistenceProblem != oldValue { problems = Self.problems(failureSummary, persistenceProblem) } } }
        var policy: StalenessPolicy { didSet { staleLimit = policy.limit(for: quote) } }
        /// How old the quote may get, kept with the source it depends on: every trade's state
        /// key reads it, and working it out is a lookup by venue name.
        private(set) var staleLimit: Duration
        /// A venue's own 24 h figures, used until the history covers a day.
        var venueDay: VenueDay?
        /// Both problems in one text, made when either changes: every trade's state key reads it.
        private(set) var problems: String?

        init(policy: StalenessPolicy) {
            self.policy = policy
            staleLimit = policy.limit(for: nil)
        }

        func freshness(now: C.Instant, wallTime: Timestamp) -> Freshness {
            Current.freshness(of: quote, ageKnown: ageKnown, age: age, staleLimit: staleLimit, now: now, wallTime: wallTime)
        }

        /// Nil when the quote's age is unknown: it is stale already, and no wait changes that.
        func timeUntilStale(now: C.Instant, wallTime: Timestamp) -> Duration? {
            ageKnown ? age.timeUntilStale(of: quote, now: now, wallTime: wallTime, staleAfter: staleLimit) : nil
        }

        private static func problems(_ failureSummary: String?, _ persistenceProblem: String?) -> String? {
            let parts = [failureSummary, persistenceProblem.map { "saving: \($0)" }].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    private struct State {
        var inputs: Inputs
        /// Made from `inputs` when first asked for; nil after a change.
        var current: Current? {
            didSet { if current == nil { lastStatus = nil } }
        }
        /// The last status line and the millisecond it was rendered in, by both clocks: asked
        /// again within it (a burst of requests), it is served as it is, its age at most that
        /// millisecond short. Gone with the snapshot it was made from.
        var lastStatus: (millisecond: Int64, wallMillisecond: Int64, line: String)?
        /// What makes a change of state for watchers, kept current with every change.
        var stateKey: WatchStateKey
        /// The history's figures version `current` was made with: made again once it moved.
        var figures = 0
        var decimalTexts = DecimalTexts()
    }

    private let state: Mutex<State>
    public let clock: C
    public let wallClock: any WallClock
    /// The configured currency: the history's, and the status's before any quote.
    public let currency: String
    /// The minutes and days the change figures are made from.
    public let history: HistoryBoard

    /// Where the board's monotonic milliseconds count from.
    private let origin: C.Instant

    public init(currency: String, policy: StalenessPolicy, clock: C, wallClock: any WallClock) {
        self.currency = currency
        history = HistoryBoard(wallClock: wallClock)
        self.clock = clock
        origin = clock.now
        self.wallClock = wallClock
        let inputs = Inputs(policy: policy)
        self.state = Mutex(State(inputs: inputs, stateKey: Self.stateKey(of: inputs, at: clock.now, wallTime: wallClock.now())))
    }

    /// The current snapshot, made now if the inputs changed since the last one.
    public var current: Current {
        let figures = history.figures
        return state.withLock { state in
            if let current = state.current, state.figures == figures { return current }
            return remake(&state, figures: figures, at: clock.now, wallTime: wallClock.now())
        }
    }

    /// A snapshot made now, for inputs or history figures that changed since the last one.
    private func remake(_ state: inout State, figures: Int, at now: C.Instant, wallTime: Timestamp) -> Current {
        let made = snapshot(of: &state, at: now, wallTime: wallTime)
        state.current = made
        state.figures = figures
        return made
    }

    /// What watchers tell changes of state by, as of the last change.
    public var stateKey: WatchStateKey { state.withLock { $0.stateKey } }

    /// The quote the board serves now.
    public var quote: Quote? { state.withLock { $0.inputs.quote } }

    /// Applies a change; returns whether it changed anything.
    @discardableResult
    private func update(_ change: (inout Inputs) -> Void) -> Bool {
        let now = clock.now, wallTime = wallClock.now()
        return state.withLock { state in
            var inputs = state.inputs
            change(&inputs)
            guard inputs != state.inputs else { return false }
            state.inputs = inputs
            state.current = nil
            state.stateKey = Self.stateKey(of: inputs, at: now, wallTime: wallTime)
            return true
        }
    }

    private func snapshot(of state: inout State, at now: C.Instant, wallTime: Timestamp) -> Current {
        let inputs = state.inputs
        // The change windows count in the venues' time, as the minutes are filed.
        let trend = history.trend(latest: inputs.quote, venueDay: inputs.venueDay, now: history.venueClock.now()) { state.decimalTexts.text($0) }
        return Snapshot(quote: inputs.quote, currency: currency, transport: inputs.transport, problems: inputs.problems, ageKnown: inputs.ageKnown,
                        age: inputs.age, staleLimit: inputs.staleLimit, trend: trend, madeAt: now, wallTime: wallTime)
    }

    private static func stateKey(of inputs: Inputs, at now: C.Instant, wallTime: Timestamp) -> WatchStateKey {
        let freshness = inputs.freshness(now: now, wallTime: wallTime)
        return WatchStateKey(quote: inputs.quote, kind: StatusSummary.kind(quote: inputs.quote, freshness: freshness, failures: inputs.problems),
                             transport: inputs.transport, problems: inputs.problems)
    }

    /// Records a cycle, its reading stamped by the intake as `polled`; returns whether it changed
    /// anything. A polled quote does not replace a streamed one while the stream carries the
    /// quotes: the poll began before the stream came up, and the trades since are newer.
    func record(_ report: CycleReport, polled: (quote: Quote, ageOnArrival: Duration)?, streamCarriesQuotes streaming: Bool) -> Bool {
        return update { inputs in
            if let polled, !(streaming && inputs.transport == .stream) {
                if let day = report.day { inputs.venueDay = VenueDay(source: polled.quote.source, range: day) }
                inputs.quote = polled.quote
                inputs.transport = .poll
                inputs.ageKnown = true
                // A cached or venue-dated answer is as old as its origin says, never fresher.
                inputs.age = QuoteAge(receivedAt: clock.now.advanced(by: .zero - polled.ageOnArrival))
            }
            inputs.failureSummary = report.failureSummary
        }
    }

    /// A read's newest streamed price, its age starting `ageOnArrival` before now (the venue's
    /// trade time), and the venue's newest day range, in one change. Returns whether it changed
    /// anything (every trade changes the age).
    func record(streamed: (quote: Quote, ageOnArrival: Duration)?, day: DayRange?, from source: SourceName) -> Bool {
        let age = streamed.map { QuoteAge(receivedAt: clock.now.advanced(by: .zero - $0.ageOnArrival)) }
        return update { inputs in
            if let day { inputs.venueDay = VenueDay(source: source, range: day) }
            if let streamed, let age {
                inputs.quote = streamed.quote
                inputs.transport = .stream
                inputs.ageKnown = true
                inputs.age = age
            }
        }
    }

    /// Named as the status names them: the quote asset of the latest quote (USDT from
    /// Binance's market for USD), the configured currency before any.
    public func historyReply(_ query: HistoryQuery) -> String { history(query).line }

    /// The history as a value, in the quote's asset.
    public func history(_ query: HistoryQuery) -> HistoryReply { history.history(query, currency: quoteAsset) }

    /// The status as a value as of now (the dashboard, the price route, the compatible shapes).
    public func status() -> StatusMessage { current.statusMessage(now: clock.now, wallTime: wallClock.now()) }

    public func dailyReply(_ query: DailyQuery) -> String { daily(query).line }

    public func daily(_ query: DailyQuery) -> DailyReply { history.daily(query, currency: quoteAsset) }

    public func price(at query: PriceAtQuery) -> PriceAtReply { history.price(at: query, currency: quoteAsset) }

    private var quoteAsset: String { state.withLock { $0.inputs.quote?.currency } ?? currency }

    /// The quote saved by the previous run; no history bar, as it was recorded then.
    func restore(_ quote: Quote, ageKnown: Bool) -> Bool {
        update {
            $0.quote = quote
            $0.ageKnown = ageKnown
        }
    }

    /// Saving started or stopped failing.
    func persistence(failing problem: String?) -> Bool {
        update { $0.persistenceProblem = problem }
    }

    /// Changes on reload.
    func use(_ policy: StalenessPolicy) -> Bool {
        update { $0.policy = policy }
    }

    /// Takes the state as of now when time alone changed it (the quote turned stale): the next
    /// snapshot is made afresh. Returns whether the state changed.
    func refreshState() -> Bool {
        let now = clock.now, wallTime = wallClock.now()
        return state.withLock { state in
            let key = Self.stateKey(of: state.inputs, at: now, wallTime: wallTime)
            guard key != state.stateKey else { return false }
            state.stateKey = key
            state.current = nil
            return true
        }
    }

    /// How fresh the quote is now. Read from the inputs, as a timer does: a snapshot is rendered
    /// only for someone who reads it.
    public func freshness() -> Freshness {
        let now = clock.now, wallTime = wallClock.now()
        return state.withLock { $0.inputs.freshness(now: now, wallTime: wallTime) }
    }

    /// How long until the quote turns stale; nil when its age is unknown.
    public func timeUntilStale() -> Duration? {
        let now = clock.now, wallTime = wallClock.now()
        return state.withLock { $0.inputs.timeUntilStale(now: now, wallTime: wallTime) }
    }

    /// How old the current quote may get before it is stale.
    public var staleLimit: Duration { state.withLock { $0.inputs.staleLimit } }

    /// STATUS= as of now (the age ticks while stale).
    public func statusSummary() -> DaemonStatus { current.status(now: clock.now, wallTime: wallClock.now()) }

    /// The status line as of now, rendered at most once a millisecond (the age's own unit): at
    /// tens of thousands of requests a second, rendering was the largest part of an answer.
    /// Specialised for the daemon's clock, as the socket's and HTTP's replies reach the board
    /// through `any StatusProvider`, where generic code pays metadata lookups on every request.
    @_specialize(where C == DaemonClock)
    public func statusReply() -> String {
        let now = clock.now, wallTime = wallClock.now()
        let elapsed = origin.duration(to: now).components
        let millisecond = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
        let figures = history.figures
        return state.withLock { state in
            if let last = state.lastStatus, last.millisecond == millisecond, last.wallMillisecond == wallTime.millisecondsSinceEpoch,
               state.figures == figures {
                return last.line
            }
            let current = (state.figures == figures ? state.current : nil) ?? remake(&state, figures: figures, at: now, wallTime: wallTime)
            let line = current.statusLine(now: now, wallTime: wallTime)
            state.lastStatus = (millisecond, wallTime.millisecondsSinceEpoch, line)
            return line
        }
    }

    @_specialize(where C == DaemonClock)
    public func priceReply() -> String { current.priceLine }
}
