/// Fills the minutes of the last week the history lacks from venues' one-minute candles, and the
/// days of the last ten years from their daily candles. The first venue in the chain that
/// answers does it all; the next is asked only for what the one before could not give (it
/// failed, it rests, or its candles do not reach back that far).
/// Every request is admitted by the ledger and the host-wide pace at the venue's candle pace, a
/// budget of its own beside the price fetches' inside the venue's published limits: the fetch
/// cycles keep their cadence while candles come, and a first start, a restart loop or several
/// instances stay within each venue's limits.
public struct Backfill<C: Clock>: Sendable where C.Duration == Duration {
    /// What one venue did for the history.
    public struct VenueReport: Sendable, Equatable {
        public let source: SourceName
        public var requests = 0
        public var filled = 0
        /// Candles that could not be used (malformed, inconsistent).
        public var skipped = 0
        /// Why it stopped before its last request, if it did.
        public var failure: FetchFailure?
        /// Why it was passed over without a request (it rests, its pace is taken), if it was.
        public var passedOver: String?

        public init(source: SourceName) { self.source = source }
    }

    public let sources: [any CandleSource]
    public let clock: C
    public let wallClock: any WallClock
    /// Its way into the ledger: each candle request is admitted and its failure recorded there.
    public let door: LedgerDoor<C.Instant>
    public var hostPace: (any HostPace)?
    /// The time the slots are counted in: the venues', where the host clock is known to be wrong
    /// (the history's clock). Unset, the wall clock. The host-wide pace is always claimed in the
    /// wall clock's time, as every instance on the host writes it.
    public var slotClock: (any WallClock)?
    /// A venue that may not be asked within this long (a rest it asked for, another instance's
    /// pace) is passed over for the next.
    public var longestWait: Duration = .seconds(60)

    public init(sources: [any CandleSource], clock: C, wallClock: any WallClock, door: LedgerDoor<C.Instant>) {
        self.sources = sources
        self.clock = clock
        self.wallClock = wallClock
        self.door = door
    }

    /// Fills the minutes of the last week. `history` is the history as it stands (the daemon
    /// keeps recording while this runs), `fill` adds a venue's bars for the minutes asked and
    /// returns how many it filled, and `finished` hears each venue's report as it is done with it.
    /// Returns whether every venue asked gave what it had (none failed or was passed over).
    @discardableResult
    public func run(history: () -> PriceHistory, fill: (CandleBatch, ClosedRange<Int64>, SourceName) -> Int,
                    finished: (VenueReport) -> Void) async -> Bool {
        await run(.minute, plan: { BackfillPlan(history: history(), now: $0, perRequest: $1) }, fill: fill, finished: finished)
    }

    /// Asks the venues in turn for candles of `interval`: `plan` says which slots a venue that
    /// takes this many a request is asked for now.
    public func run(_ interval: CandleInterval, plan: (Timestamp, Int) -> BackfillPlan, fill: (CandleBatch, ClosedRange<Int64>, SourceName) -> Int,
                    finished: (VenueReport) -> Void) async -> Bool {
        for source in sources {
            let now = (slotClock ?? wallClock).now()
            let all = plan(now, source.perRequest).requests
            if all.isEmpty { return true }
            if Task.isCancelled { return false }
            let reach = source.reachesBack.map { interval.slot(of: now) - $0 }
            let requests = all.compactMap { request -> ClosedRange<Int64>? in
                guard let reach else { return request }
                return request.upperBound < reach ? nil : max(request.lowerBound, reach)...request.upperBound
            }
            var report = VenueReport(source: source.name)
            for request in requests {
                if let refusal = await admission(of: source) {
                    report.passedOver = refusal
                    break
                }
                report.requests += 1
                let limit = source.attemptLimit
                let outcome = await TimeLimit.run(limit, on: clock, failure: .timeout(after: limit)) { try await source.candles(request, every: interval) }
                guard let outcome else { return false }
                switch outcome {
                case .success(let batch):
                    report.filled += fill(batch, request, source.name)
                    report.skipped += batch.skipped
                case .failure(let failure):
                    door.candlesFailed(source.name, failure, at: clock.now)
                    report.failure = failure
                }
                if report.failure != nil { break }
            }
            if report.requests > 0 || report.passedOver != nil { finished(report) }
            // Done unless this venue failed, was passed over, or could not reach back far enough.
            if report.failure == nil, report.passedOver == nil, requests == all { return !Task.isCancelled }
        }
        return false
    }

    /// Waits until the ledger's candle pace and the host-wide one let `source` be asked for
    /// candles, and counts the request; nil once admitted, otherwise why it is passed over.
    /// Candles have a pace of their own beside the price fetches', so the fetch cycles keep
    /// every turn of theirs while this waits.
    private func admission(of source: any CandleSource) async -> String? {
        let deadline = clock.now.advanced(by: longestWait), pace = source.candlePace, claim = source.hostClaim
        while !Task.isCancelled {
            let now = clock.now
            var heldByHost = false
            switch door.admitCandles(source.name, pace: pace, at: now, alsoAllowed: {
                guard let hostPace, !hostPace.claim(source.name, kind: claim.kind, pace: claim.pace, at: wallClock.now()) else { return true }
                heldByHost = true
                return false
            }) {
            case nil:
                return nil
            case .coolingDown?:
                return "it rests until it may be asked again"
            default:
                // Another instance's candle request takes the host-wide pace: try again after it.
                let next = heldByHost ? now.advanced(by: claim.pace) : door.ledger.nextCandlesAllowed(source.name, pace: pace, at: now)
                guard next <= deadline else { return "its limits allow no request within \(longestWait)" }
                do { try await clock.sleep(until: max(next, now.advanced(by: .milliseconds(1))), tolerance: nil) } catch { return "stopped" }
            }
        }
        return "stopped"
    }
}
