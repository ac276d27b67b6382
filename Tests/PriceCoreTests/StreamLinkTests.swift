import PriceCore
import TestClocks
import Testing

/// The stream's life on a manual clock: connect, stay healthy on messages, stall, back off,
/// rotate before the venue's cut-off, and rest after a refusal.
@Suite("Stream link: health, stalls, backoff and rotation on a manual clock")
struct StreamLinkTests {
    typealias Instant = ManualClock.Instant
    let start = Instant(offset: .zero)
    func at(_ seconds: Double) -> Instant { start.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    let trade = [StreamEvent.trade(SourceQuote(price: try! Price(parsing: "85866.18"), symbol: "BTCUSDT", quoteAsset: "USDT"), nil)]
    let heartbeat = [StreamEvent.alive]

    /// Heartbeats keep a connection from stalling, but only prices keep REST resting: a stream
    /// that carries heartbeats and no price hands the quote to REST after the silence limit,
    /// and stays connected.
    @Test func heartbeatsWithoutPricesHandTheQuoteToRestWhileTheConnectionStays() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        link.opened(at: at(1))
        #expect(link.isHealthy(at: at(5.9)), "a new connection gets the silence limit to send its first price")
        for second in stride(from: 2.0, through: 30, by: 1) { link.received(heartbeat, at: at(second)) }
        #expect(!link.hasStalled(at: at(30.5)), "heartbeats prove the connection is alive")
        #expect(link.isPriceSilent(at: at(30.5)) && !link.isHealthy(at: at(30.5)),
                "no price for 29.5 s: REST refreshes the quote (healthy \(link.isHealthy(at: at(30.5))))")
        link.received(trade, at: at(31))
        #expect(link.isHealthy(at: at(31)) && !link.isPriceSilent(at: at(31)), "a price makes it healthy again")
        #expect(!link.isHealthy(at: at(36)), "five more seconds of heartbeats only: silent again")
    }

    @Test func healthyWhileMessagesArriveAndStalledAfterFiveSilentSeconds() {
        var link = StreamLink(now: start)
        #expect(link.shouldConnect(at: start))
        #expect(!link.isHealthy(at: start), "REST polls until the stream is live")
        link.connecting(at: start)
        #expect(!link.shouldConnect(at: at(1)), "one attempt at a time")
        link.opened(at: at(0.2))
        link.received(trade, at: at(1))
        #expect(link.isHealthy(at: at(5.9)))
        #expect(!link.hasStalled(at: at(5.9)))
        #expect(link.nextDeadline() == at(6), "the stall check is the next thing due")
        #expect(!link.isHealthy(at: at(6)) && link.hasStalled(at: at(6)), "no message, heartbeat included, for 5 s")
    }

    @Test func aStreamThatKeepsFailingBacksOffExponentiallyWithJitterUpToFiveMinutes() {
        var link = StreamLink(now: start)
        var now = start
        var delays: [Duration] = []
        for _ in 0..<12 {
            link.connecting(at: now)
            link.ended(.failed("connection refused"), at: now, jitter: 1)
            guard case .waiting(let until) = link.phase else { Issue.record("not waiting: \(link.phase)"); return }
            delays.append(now.duration(to: until))
            now = until
        }
        #expect(delays.prefix(6) == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(64)])
        #expect(delays.last == .seconds(300))
        var halfJitter = StreamLink(now: start)
        halfJitter.connecting(at: start)
        halfJitter.ended(.failed("x"), at: start, jitter: 0)
        #expect(halfJitter.phase == .waiting(until: at(1)), "equal jitter: at least half the backoff")
    }

    @Test func connectionsThatDropAtOnceNeverReconnectFasterThanTheBackoff() {
        // Opens, carries a message, drops: an hour of it stays far below Binance's 300 per 5 minutes.
        var link = StreamLink(now: start)
        var now = start, attempts: [Instant] = []
        while now < at(3600) {
            if link.shouldConnect(at: now) {
                attempts.append(now)
                link.connecting(at: now)
                link.opened(at: now)
                link.received(trade, at: now.advanced(by: .seconds(1)))
                link.ended(.closed("1006"), at: now.advanced(by: .seconds(2)), jitter: 0)
            }
            now = now.advanced(by: .milliseconds(500))
        }
        let busiestFiveMinutes = attempts.map { first in attempts.filter { first <= $0 && $0 < first.advanced(by: .seconds(300)) }.count }.max() ?? 0
        #expect(busiestFiveMinutes <= 10, "\(busiestFiveMinutes) connections in 5 minutes")
        #expect(attempts.count <= 30, "\(attempts.count) connections in an hour: at worst one every 150 s once backed off")
    }

    @Test func aProvenConnectionStartsTheBackoffOver() {
        var link = StreamLink(now: start)
        for _ in 0..<5 {
            link.connecting(at: start)
            link.ended(.failed("x"), at: start, jitter: 1)
        }
        #expect(link.consecutiveFailures == 5)
        link.connecting(at: at(100))
        link.opened(at: at(100))
        link.received(trade, at: at(170))
        #expect(link.consecutiveFailures == 0, "a minute of data proves the connection")
        link.ended(.closed("1001"), at: at(171), jitter: 1)
        #expect(link.phase == .waiting(until: at(173)), "the first retry after a proven connection waits the first step, not zero")
    }

    @Test func aRefusedUpgradeRestsForAnHour() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        link.ended(.refused(status: 451), at: start, jitter: 0)
        #expect(link.phase == .refused(until: at(3600)))
        #expect(!link.shouldConnect(at: at(3599)) && link.shouldConnect(at: at(3600)))
        #expect(!link.isHealthy(at: at(10)), "REST covers while the stream is refused")
    }

    @Test func rotationComesBeforeTheVenuesDayCutOffOrOnAShutdownNotice() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        link.opened(at: start)
        let day = 24 * 3600.0
        link.received(trade, at: at(day - 1801))
        #expect(!link.rotationDue(at: at(day - 1801)))
        link.received(trade, at: at(day - 1800))
        #expect(link.rotationDue(at: at(day - 1800)), "23 h 30 min after connecting, well before Binance's 24 h")
        link.replacing(at: at(day - 1800))
        #expect(!link.rotationDue(at: at(day - 1799)), "one replacement at a time")
        #expect(link.isHealthy(at: at(day - 1799)), "the old connection serves while the replacement connects")
        link.replaced(at: at(day - 1799))
        #expect(!link.rotationDue(at: at(day - 1797)) && link.isHealthy(at: at(day - 1797)), "the replacement carries on with its own age")
        let reception = link.received([.closingSoon], at: at(day + 1))
        #expect(reception == .init(becameLive: false, closingSoon: true), "a shutdown notice asks for a rotation now")
    }

    @Test func aStallEndsLikeAFailure() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        link.opened(at: start)
        #expect(link.hasStalled(at: at(5)))
        link.ended(.stalled(after: .seconds(5)), at: at(5), jitter: 1)
        #expect(link.phase == .waiting(until: at(7)))
        #expect(link.consecutiveFailures == 1)
    }
}

extension StreamLinkTests {
    @Test func aRotationReconnectsAtOnceAndStaysHealthyAcrossTheGap() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        link.opened(at: start)
        link.received(trade, at: at(100))
        link.rotating(at: at(100.5))
        #expect(link.phase == .connecting(since: at(100.5)), "no backoff: a rotation is not a failure")
        #expect(link.isHealthy(at: at(104.9)), "the fetch loop spends no REST call while it reconnects")
        #expect(!link.isHealthy(at: at(105)), "but a reconnect that takes past the stall limit hands over to REST")
        link.opened(at: at(100.7))
        #expect(link.isHealthy(at: at(101)) && link.consecutiveFailures == 0)
    }
}

extension StreamLinkTests {
    @Test func anAttemptNotLiveWithinTenSecondsIsGivenUp() {
        var link = StreamLink(now: start)
        link.connecting(at: start)
        #expect(link.nextDeadline() == at(10))
        #expect(!link.hasStalled(at: at(9.9)))
        #expect(link.hasStalled(at: at(10)), "a black-holed address or an upgrade never answered")
        link.ended(.failed("no answer"), at: at(10), jitter: 1)
        #expect(link.phase == .waiting(until: at(12)))
    }
}

extension StreamLinkTests {
    func liveLink(since seconds: Double = 0) -> StreamLink<Instant> {
        var link = StreamLink(now: at(seconds))
        link.connecting(at: at(seconds))
        link.opened(at: at(seconds))
        return link
    }

    @Test func aReplacementThatFailsLeavesTheOldConnectionAndIsTriedAgainLater() {
        var link = liveLink()
        let due = 23 * 3600.0 + 1800
        link.received(trade, at: at(due))
        link.replacing(at: at(due))
        #expect(link.nextDeadline() == at(due + 5), "the old connection's stall limit comes first")
        link.received(trade, at: at(due + 4))
        #expect(link.nextDeadline() == at(due + 9))
        #expect(!link.replacementTimedOut(at: at(due + 9.9)) && link.replacementTimedOut(at: at(due + 10)))
        link.replacementFailed(at: at(due + 10))
        #expect(link.isHealthy(at: at(due + 8.9)) && link.replacementSince == nil)
        #expect(!link.rotationDue(at: at(due + 39.9)), "not straight back at the venue")
        #expect(link.rotationDue(at: at(due + 40)))
        #expect(link.consecutiveFailures == 0, "a failed replacement is no failure of the stream")
    }

    @Test func theOldConnectionEndingBeforeItsReplacementIsLiveHandsOverWithoutAGap() {
        var link = liveLink()
        link.received(trade, at: at(84_600))
        link.replacing(at: at(84_600.2))
        link.rotating(at: at(84_600.4))
        #expect(link.phase == .connecting(since: at(84_600.2)), "the replacement is the attempt in flight")
        #expect(link.isHealthy(at: at(84_604.9)), "no REST call within the stall limit")
        let reception = link.received(trade, at: at(84_600.6))
        #expect(reception == .init(becameLive: true, closingSoon: false) && link.phase == .live(since: at(84_600.6), lastMessage: at(84_600.6)),
                "its first message makes it live")
    }

    /// A read that a connection delivers after the link gave it up (a stall, a close) is not a
    /// reconnection: it neither makes the link live again nor counts as a price.
    @Test func messagesAfterTheLinkEndedLeaveItWaiting() {
        var link = liveLink()
        link.received(trade, at: at(1))
        link.ended(.stalled(after: .seconds(5)), at: at(6), jitter: 0)
        let waiting = link.phase
        let reception = link.received(trade + [.closingSoon], at: at(6.1))
        #expect(reception == .init(), "nothing to act on: \(reception)")
        #expect(link.phase == waiting && link.lastPrice == at(1), "phase \(link.phase), last price \(String(describing: link.lastPrice))")
    }

    @Test func aRefusedVenueHandsTheStreamToTheNextInTheChainUntilItsRestEnds() {
        var binance = StreamLink(now: start), coinbase = StreamLink(now: start), kraken = StreamLink(now: start)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: start) == 0)
        binance.ended(.refused(status: 451), at: start, jitter: 0)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(1)) == 1)
        coinbase.connecting(at: at(1))
        coinbase.ended(.failed("reset"), at: at(2), jitter: 0)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(3)) == 1, "a drop backs off on the same venue, never hops")
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(3600)) == 0, "the first choice again once its rest is over")
        coinbase.ended(.refused(status: 403), at: at(10), jitter: 0)
        kraken.ended(.refused(status: 451), at: at(5), jitter: 0)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(20)) == 0, "all resting: the one whose rest ends first")
        #expect(StreamLink.preferred([StreamLink<Instant>](), at: start) == nil)
    }

    /// REST must refresh a silent stream's quote before it turns stale: the limit leaves room
    /// for the next fetch tick, the timeout, the read interval and a margin.
    @Test func thePriceSilenceLimitFollowsStaleAfter() {
        func limit(_ staleAfter: Duration) -> Duration {
            PriceSilence.limit(staleAfter: staleAfter, interval: .seconds(1), timeout: .milliseconds(800), readInterval: .milliseconds(250))
        }
        #expect(limit(.seconds(10)) == .seconds(5), "the defaults keep 5 s")
        #expect(limit(.seconds(5)) == .milliseconds(2450), "5 s - 1 s - 800 ms - 250 ms - 500 ms: \(limit(.seconds(5)))")
        #expect(limit(.seconds(1)) == .seconds(1), "never below 1 s: \(limit(.seconds(1)))")
        #expect(limit(.seconds(3600)) == .seconds(5))
        for staleAfter in [Duration.milliseconds(3550), .seconds(5), .seconds(7), .seconds(10)] {
            let refreshedBy = limit(staleAfter) + .seconds(1) + .milliseconds(800) + .milliseconds(250)
            #expect(refreshedBy < staleAfter, "with STALE_AFTER=\(staleAfter), REST answers by \(refreshedBy)")
        }
        var link = StreamLink<ManualClock.Instant>(now: ManualClock().now)
        link.use(priceSilenceAfter: limit(.seconds(5)))
        #expect(link.policy.priceSilenceAfter == .milliseconds(2450), "a reload sets the link's limit")
    }
}
