import PriceCore
import TestClocks
import Testing

/// The stream's life on a manual clock, told as events and answered with actions: connect,
/// stay healthy on messages, stall, back off, rotate before the venue's cut-off, and rest
/// after a refusal.
@Suite("Stream link: health, stalls, backoff and rotation on a manual clock")
struct StreamLinkTests {
    typealias Instant = ManualClock.Instant
    let start = Instant(offset: .zero)
    func at(_ seconds: Double) -> Instant { start.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    let trade = [StreamEvent.trade(SourceQuote(price: try! Price(parsing: "85866.18"), symbol: "BTCUSDT", quoteAsset: "USDT"), nil)]
    let heartbeat = [StreamEvent.alive]

    /// A link whose connection 0 went live at `seconds`.
    func liveLink(since seconds: Double = 0) -> StreamLink<Instant> {
        var link = StreamLink(now: at(seconds))
        link.handle(.attempt, at: at(seconds), jitter: 0)
        link.handle(.opened(0), at: at(seconds), jitter: 0)
        return link
    }

    /// Heartbeats keep a connection from stalling, but only prices keep REST resting: a stream
    /// that carries heartbeats and no price hands the quote to REST after the silence limit,
    /// and stays connected.
    @Test func heartbeatsWithoutPricesHandTheQuoteToRestWhileTheConnectionStays() {
        var link = StreamLink(now: start)
        link.handle(.attempt, at: start, jitter: 0)
        link.handle(.opened(0), at: at(1), jitter: 0)
        #expect(link.isHealthy(at: at(5.9)), "a new connection gets the silence limit to send its first price")
        for second in stride(from: 2.0, through: 30, by: 1) { link.received(heartbeat, from: 0, at: at(second)) }
        #expect(link.handle(.due, at: at(30.5), jitter: 0) == [], "heartbeats prove the connection is alive")
        #expect(link.isPriceSilent(at: at(30.5)) && !link.isHealthy(at: at(30.5)),
                "no price for 29.5 s: REST refreshes the quote (healthy \(link.isHealthy(at: at(30.5))))")
        link.received(trade, from: 0, at: at(31))
        #expect(link.isHealthy(at: at(31)) && !link.isPriceSilent(at: at(31)), "a price makes it healthy again")
        #expect(!link.isHealthy(at: at(36)), "five more seconds of heartbeats only: silent again")
    }

    @Test func healthyWhileMessagesArriveAndHandedOverAfterFiveSilentSeconds() {
        var link = StreamLink(now: start)
        #expect(!link.isHealthy(at: start), "REST polls until the stream is live")
        #expect(link.handle(.attempt, at: start, jitter: 1) == [.open(0)])
        #expect(link.handle(.attempt, at: at(1), jitter: 1) == [], "one attempt at a time")
        #expect(link.handle(.opened(0), at: at(0.2), jitter: 1) == [.live(0)])
        let first = link.received(trade, from: 0, at: at(1))
        #expect(first == .init(counts: true, actions: [.carrying]), "the first message is announced once: \(first)")
        #expect(link.received(trade, from: 0, at: at(1.5)) == .init(counts: true), "the next asks for nothing")
        #expect(link.isHealthy(at: at(6.4)))
        #expect(link.handle(.due, at: at(6.4), jitter: 1) == [])
        #expect(link.nextCheck(at: at(6.4)) == at(6.5), "the stall check is the next thing due")
        #expect(link.handle(.due, at: at(6.5), jitter: 1) == [.handOver(.stalled(after: .seconds(5)))], "no message, heartbeat included, for 5 s")
        #expect(link.phase == .waiting(until: at(8.5)) && !link.isHealthy(at: at(6.5)))
        #expect(link.received(trade, from: 0, at: at(6.6)) == .init(), "a read after the hand-over does not count")
    }

    @Test func aStreamThatKeepsFailingBacksOffExponentiallyWithJitterUpToFiveMinutes() {
        var link = StreamLink(now: start)
        var now = start
        var delays: [Duration] = []
        for attempt in 0..<12 {
            #expect(link.handle(.attempt, at: now, jitter: 1) == [.open(attempt)])
            #expect(link.handle(.ended(attempt, .failed("connection refused")), at: now, jitter: 1) == [.handOver(.failed("connection refused"))])
            guard case .waiting(let until) = link.phase else { Issue.record("not waiting: \(link.phase)"); return }
            #expect(link.handle(.attempt, at: now, jitter: 1) == [.rest(until: until)], "nothing opens before the rest is over")
            delays.append(now.duration(to: until))
            now = until
        }
        #expect(delays.prefix(6) == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(64)])
        #expect(delays.last == .seconds(300))
        var halfJitter = StreamLink(now: start)
        halfJitter.handle(.attempt, at: start, jitter: 0)
        halfJitter.handle(.ended(0, .failed("x")), at: start, jitter: 0)
        #expect(halfJitter.phase == .waiting(until: at(1)), "equal jitter: at least half the backoff")
    }

    @Test func connectionsThatDropAtOnceNeverReconnectFasterThanTheBackoff() {
        // Opens, carries a message, drops: an hour of it stays far below Binance's 300 per 5 minutes.
        var link = StreamLink(now: start)
        var now = start, attempts: [Instant] = []
        while now < at(3600) {
            if case .open(let id)? = link.handle(.attempt, at: now, jitter: 0).first {
                attempts.append(now)
                link.handle(.opened(id), at: now, jitter: 0)
                link.received(trade, from: id, at: now.advanced(by: .seconds(1)))
                link.handle(.ended(id, .closed("1006")), at: now.advanced(by: .seconds(2)), jitter: 0)
            }
            now = now.advanced(by: .milliseconds(500))
        }
        let busiestFiveMinutes = attempts.map { first in attempts.filter { first <= $0 && $0 < first.advanced(by: .seconds(300)) }.count }.max() ?? 0
        #expect(busiestFiveMinutes <= 10, "\(busiestFiveMinutes) connections in 5 minutes")
        #expect(attempts.count <= 30, "\(attempts.count) connections in an hour: at worst one every 150 s once backed off")
    }

    @Test func aProvenConnectionStartsTheBackoffOver() {
        var link = StreamLink(now: start)
        var now = start
        for attempt in 0..<5 {
            #expect(link.handle(.attempt, at: now, jitter: 1) == [.open(attempt)])
            link.handle(.ended(attempt, .failed("x")), at: now, jitter: 1)
            if case .waiting(let until) = link.phase { now = until }
        }
        #expect(link.consecutiveFailures == 5)
        #expect(link.handle(.attempt, at: at(100), jitter: 1) == [.open(5)])
        link.handle(.opened(5), at: at(100), jitter: 1)
        link.received(trade, from: 5, at: at(170))
        #expect(link.consecutiveFailures == 0, "a minute of data proves the connection")
        link.handle(.ended(5, .closed("1001")), at: at(171), jitter: 1)
        #expect(link.phase == .waiting(until: at(173)), "the first retry after a proven connection waits the first step, not zero")
    }

    @Test func aRefusedUpgradeRestsForAnHour() {
        var link = StreamLink(now: start)
        link.handle(.attempt, at: start, jitter: 0)
        #expect(link.handle(.ended(0, .refused(status: 451)), at: start, jitter: 0) == [.handOver(.refused(status: 451))])
        #expect(link.phase == .refused(until: at(3600)))
        #expect(link.handle(.attempt, at: at(3599), jitter: 0) == [.rest(until: at(3600))])
        #expect(!link.isHealthy(at: at(10)), "REST covers while the stream is refused")
        #expect(link.handle(.attempt, at: at(3600), jitter: 0) == [.open(1)])
    }

    /// A restart keeps a venue's refusal: the link starts refused until the refusal's end.
    @Test func aRefusalBeforeARestartKeepsTheLinkResting() {
        var link = StreamLink(now: start)
        link.handle(.refusedBefore(until: at(1800)), at: start, jitter: 0)
        #expect(link.handle(.attempt, at: at(1), jitter: 0) == [.rest(until: at(1800))])
        #expect(link.handle(.attempt, at: at(1800), jitter: 0) == [.open(0)])
    }
}

extension StreamLinkTests {
    @Test func rotationComesBeforeTheVenuesDayCutOffAndRetiresTheOldConnectionOnTheReplacementsFirstMessage() {
        var link = liveLink()
        let day = 24 * 3600.0
        link.received(trade, from: 0, at: at(day - 1801))
        #expect(link.handle(.due, at: at(day - 1801), jitter: 0) == [])
        link.received(trade, from: 0, at: at(day - 1800))
        #expect(link.handle(.due, at: at(day - 1800), jitter: 0) == [.open(1)], "23 h 30 min after connecting, well before Binance's 24 h")
        #expect(link.handle(.due, at: at(day - 1799.5), jitter: 0) == [], "one replacement at a time")
        #expect(link.isHealthy(at: at(day - 1799.5)), "the old connection serves while the replacement connects")
        #expect(link.handle(.opened(1), at: at(day - 1799.4), jitter: 0) == [], "a replacement's upgrade is not yet a take-over")
        let takeOver = link.received(trade, from: 1, at: at(day - 1799))
        #expect(takeOver == .init(counts: true, actions: [.live(1), .close(0), .carrying]), "\(takeOver)")
        #expect(link.inUse == 1 && link.replacement == nil)
        #expect(link.received(trade, from: 0, at: at(day - 1798.9)) == .init(), "the retired connection's last reads do not count")
        #expect(link.handle(.due, at: at(day - 1797), jitter: 0) == [] && link.isHealthy(at: at(day - 1797)),
                "the replacement carries on with its own age")
        let notice = link.received([.closingSoon], from: 1, at: at(day + 1))
        #expect(notice == .init(counts: true, actions: [.open(2)]), "a shutdown notice asks for a rotation now: \(notice)")
        #expect(link.received([.closingSoon], from: 1, at: at(day + 1.5)) == .init(counts: true), "one replacement at a time")
    }

    @Test func aRotationReconnectsAtOnceAndStaysHealthyAcrossTheGap() {
        var link = liveLink()
        link.received(trade, from: 0, at: at(100))
        link.received([.closingSoon], from: 0, at: at(100.2))
        #expect(link.handle(.ended(0, .closed("1001")), at: at(100.5), jitter: 0) == [], "no hand-over: the replacement is the attempt now")
        #expect(link.phase == .connecting(since: at(100.2)) && link.inUse == 1, "no backoff: a rotation is not a failure")
        #expect(link.isHealthy(at: at(105.1)), "the fetch loop spends no REST call while it reconnects")
        #expect(!link.isHealthy(at: at(105.2)), "but a reconnect that takes past the stall limit (from the last message) hands over to REST")
        let first = link.received(trade, from: 1, at: at(100.6))
        #expect(first == .init(counts: true, actions: [.live(1), .carrying]) && link.phase == .live(since: at(100.6), lastMessage: at(100.6)),
                "its first message makes it live: \(first)")
        #expect(link.isHealthy(at: at(101)) && link.consecutiveFailures == 0)
    }

    @Test func anAttemptNotLiveWithinTenSecondsIsGivenUp() {
        var link = StreamLink(now: start)
        link.handle(.attempt, at: start, jitter: 1)
        #expect(link.nextDeadline() == at(10))
        #expect(link.nextCheck(at: at(3)) == at(4), "while connecting, the watch looks every second")
        #expect(link.handle(.due, at: at(9.9), jitter: 1) == [])
        #expect(link.handle(.due, at: at(10), jitter: 1) == [.handOver(.failed("no answer within 10s of connecting"))],
                "a black-holed address or an upgrade never answered")
        #expect(link.phase == .waiting(until: at(12)))
    }

    @Test func aReplacementThatFailsLeavesTheOldConnectionAndIsTriedAgainLater() {
        var link = liveLink()
        let due = 23 * 3600.0 + 1800
        link.received(trade, from: 0, at: at(due))
        #expect(link.handle(.due, at: at(due), jitter: 0) == [.open(1)])
        #expect(link.nextCheck(at: at(due)) == at(due + 1), "while replacing, the watch looks every second")
        #expect(link.nextDeadline() == at(due + 5), "the old connection's stall limit comes first")
        link.received(trade, from: 0, at: at(due + 4))
        #expect(link.nextDeadline() == at(due + 9))
        link.received(trade, from: 0, at: at(due + 9))
        #expect(link.handle(.due, at: at(due + 9.9), jitter: 0) == [])
        #expect(link.handle(.due, at: at(due + 10), jitter: 0) == [.close(1)], "the replacement never carried a message")
        #expect(link.isHealthy(at: at(due + 13.9)) && link.replacementSince == nil && link.inUse == 0)
        #expect(link.received(trade, from: 1, at: at(due + 10.5)) == .init(), "the given-up replacement's late read does not count")
        for second in stride(from: due + 11, through: due + 39, by: 1) {
            link.received(trade, from: 0, at: at(second))
            #expect(link.handle(.due, at: at(second + 0.5), jitter: 0) == [], "not straight back at the venue, at \(second + 0.5 - due) s")
        }
        #expect(link.handle(.due, at: at(due + 40), jitter: 0) == [.open(2)])
        #expect(link.consecutiveFailures == 0, "a failed replacement is no failure of the stream")
    }

    @Test func aReplacementThatEndsLeavesTheOldConnection() {
        var link = liveLink()
        link.received([.closingSoon], from: 0, at: at(10))
        #expect(link.handle(.ended(1, .failed("reset")), at: at(11), jitter: 0) == [])
        #expect(link.inUse == 0 && link.replacement == nil && link.isLive, "the old connection carries on")
    }

    /// A read that a connection delivers after the link gave it up (a stall, a close) is not a
    /// reconnection: it neither makes the link live again nor counts as a price.
    @Test func messagesAfterTheLinkEndedLeaveItWaiting() {
        var link = liveLink()
        link.received(trade, from: 0, at: at(1))
        link.handle(.due, at: at(6), jitter: 0)
        let waiting = link.phase
        let reception = link.received(trade + [.closingSoon], from: 0, at: at(6.1))
        #expect(reception == .init(), "nothing to act on: \(reception)")
        #expect(link.handle(.opened(0), at: at(6.2), jitter: 0) == [], "nor a late upgrade")
        #expect(link.phase == waiting && link.lastPrice == at(1), "phase \(link.phase), last price \(String(describing: link.lastPrice))")
    }

    @Test func aRefusedVenueHandsTheStreamToTheNextInTheChainUntilItsRestEnds() {
        var binance = StreamLink(now: start), coinbase = StreamLink(now: start), kraken = StreamLink(now: start)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: start) == 0)
        binance.handle(.attempt, at: start, jitter: 0)
        binance.handle(.ended(0, .refused(status: 451)), at: start, jitter: 0)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(1)) == 1)
        coinbase.handle(.attempt, at: at(1), jitter: 0)
        coinbase.handle(.ended(0, .failed("reset")), at: at(2), jitter: 0)
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(3)) == 1, "a drop backs off on the same venue, never hops")
        #expect(StreamLink.preferred([binance, coinbase, kraken], at: at(3600)) == 0, "the first choice again once its rest is over")
        coinbase.handle(.refusedBefore(until: at(3610)), at: at(10), jitter: 0)
        kraken.handle(.refusedBefore(until: at(3605)), at: at(5), jitter: 0)
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
        link.handle(.priceSilenceAfter(limit(.seconds(5))), at: ManualClock().now, jitter: 0)
        #expect(link.policy.priceSilenceAfter == .milliseconds(2450), "a reload sets the link's limit")
    }
}
