import PriceCore
import TestClocks
import Testing

@Suite("Fallback: sources in order, each under a timeout")
struct FallbackFetcherTests {
    @Test func primaryWinsWhenHealthy() async throws {
        let binance = StubSource(.binance, [.quote("68901.23")])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("68900")])
        let fetcher = FallbackFetcher(sources: [binance, cryptoCompare], timeout: .milliseconds(800), clock: ManualClock())
        let attempts = await fetcher.fetch { _ in nil }.attempts
        #expect(attempts == [.succeeded(.binance, SourceQuote(price: try Price(parsing: "68901.23"), symbol: "BTCUSDT", quoteAsset: "USDT"))])
        #expect(cryptoCompare.callCount == 0)
    }

    @Test func fallsBackOnFailureInOrder() async throws {
        let binance = StubSource(.binance, [.fail(.httpStatus(503))])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("68900.5")])
        let fetcher = FallbackFetcher(sources: [binance, cryptoCompare], timeout: .milliseconds(800), clock: ManualClock())
        let attempts = await fetcher.fetch { _ in nil }.attempts
        #expect(attempts == [.failed(.binance, .httpStatus(503)),
                             .succeeded(.cryptoCompare, SourceQuote(price: try Price(parsing: "68900.5"), symbol: "BTCUSD", quoteAsset: "USD"))])
    }

    @Test func slowPrimaryTimesOutOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.hang])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("68900.5")])
        let fetcher = FallbackFetcher(sources: [binance, cryptoCompare], timeout: .milliseconds(800), clock: clock)
        let task = Task { await fetcher.fetch { _ in nil }.attempts }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(799))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        let attempts = await task.value
        #expect(attempts.first == .failed(.binance, .timeout(after: .milliseconds(800))))
        #expect(attempts.last == .succeeded(.cryptoCompare, SourceQuote(price: try Price(parsing: "68900.5"), symbol: "BTCUSD", quoteAsset: "USD")))
    }

    /// A source behind a proxy counts its connection apart: its own limit and failure apply.
    @Test func aSourceWithItsOwnLimitIsGivenItAndFailsInItsWords() async throws {
        struct Proxied: PriceSource {
            let stub: StubSource
            var name: SourceName { stub.name }
            var quoteAsset: String { stub.quoteAsset }
            var limits: SourceLimits { stub.limits }
            var attemptLimit: AttemptLimit? {
                AttemptLimit(.seconds(41), failure: .proxy(ProxyTrouble(.noAnswer(within: .seconds(10)), proxy: "socks5h://127.0.0.1:9050", isSOCKS: true)))
            }
            func fetchQuote() async throws -> SourceQuote { try await stub.fetchQuote() }
        }
        let clock = ManualClock()
        let fetcher = FallbackFetcher(sources: [Proxied(stub: StubSource(.binance, [.hang]))], timeout: .milliseconds(800), clock: clock)
        let task = Task { await fetcher.fetch { _ in nil }.attempts }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(40_999))
        #expect(clock.sleeperCount == 1, "not the chain's 800 ms")
        clock.advance(by: .milliseconds(1))
        let attempts = await task.value
        guard case .failed(_, let failure) = attempts.first else { Issue.record("\(attempts)"); return }
        #expect(failure.description == "no answer within 10s through socks5h://127.0.0.1:9050 (Tor circuits can take several seconds; is tor running and bootstrapped?)")
        #expect(failure.reason == .timeout)
    }

    @Test func coolingDownSourcesAreSkipped() async {
        let binance = StubSource(.binance, [.quote("1")])
        let cryptoCompare = StubSource(.cryptoCompare, [.fail(.exchangeError("down"))])
        let fetcher = FallbackFetcher(sources: [binance, cryptoCompare], timeout: .seconds(1), clock: ManualClock())
        let attempts = await fetcher.fetch { $0 == .binance ? .coolingDown($0) : nil }.attempts
        #expect(attempts == [.coolingDown(.binance), .failed(.cryptoCompare, .exchangeError("down"))])
        #expect(binance.callCount == 0)
    }

    @Test func unknownErrorsBecomeTransportFailures() async {
        struct Weird: Error {}
        final class Throwing: PriceSource {
            let name: SourceName = .binance
            let quoteAsset = "USDT"
            let limits = SourceLimits(minimumInterval: .zero)
            func fetchQuote() async throws -> SourceQuote { throw Weird() }
        }
        let attempts = await FallbackFetcher(sources: [Throwing()], timeout: .seconds(1), clock: ManualClock()).fetch { _ in nil }.attempts
        guard case .failed(.binance, .transport(let reason)) = attempts.first else {
            Issue.record("expected a transport failure, got \(attempts)")
            return
        }
        #expect(reason.contains("Weird"))
    }

    /// An answer already older than STALE_AFTER when it comes is that venue's failure for the
    /// cycle ("answered a quote 30 s old"): the chain asks the next venue. With no better answer
    /// anywhere, it is still what the cycle found.
    @Test func anAnswerStaleOnArrivalMovesTheChainOn() async throws {
        let now = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        let binance = StubSource(.binance, [.dated("68901.23", origin: now.adding(milliseconds: -30_000), cacheAge: .zero)])
        let coinbase = StubSource(.coinbase, [.quote("68900.5")])
        var fetcher = FallbackFetcher(sources: [binance, coinbase], timeout: .milliseconds(800), clock: ManualClock())
        fetcher.staleOnArrival = { quote in
            let age = ExchangeTime.stamp(origin: quote.originTime, cacheAge: quote.cacheAge, receivedAt: now).ageOnArrival
            return age > .seconds(10) ? age : nil
        }
        let round = await fetcher.fetch { _ in nil }
        #expect(round.attempts == [.failed(.binance, .staleAnswer(age: .seconds(30))),
                                   .succeeded(.coinbase, SourceQuote(price: try Price(parsing: "68900.5"), symbol: "BTCUSD", quoteAsset: "USD"))],
                "\(round.attempts)")
        #expect(FetchFailure.staleAnswer(age: .seconds(30)).description == "answered a quote 30 s old (cached or lagging)")
        #expect(round.answers.map(\.source) == [.coinbase] && round.lateAnswers.map(\.source) == [.binance])

        coinbase.answer([.fail(.httpStatus(503))])
        let alone = await fetcher.fetch { _ in nil }
        #expect(alone.answers.isEmpty && alone.lateAnswers.first?.quote.price.description == "68901.23",
                "kept, for a cycle with nothing better: \(alone.attempts)")
    }
}

extension FallbackFetcherTests {
    /// A held price is the venue's failure for the cycle: the next venue is asked in the same
    /// cycle, and its answer is the round's.
    @Test func aHeldPriceMovesTheChainOnWithinTheCycle() async throws {
        let binance = StubSource(.binance, [.quote("50000")])
        let coinbase = StubSource(.coinbase, [.quote("100020")])
        let check = PriceCheck(confirmMove: 0.05)
        let last = try Price(parsing: "100000"), now = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        var fetcher = FallbackFetcher(sources: [binance, coinbase], timeout: .milliseconds(800), clock: ManualClock())
        fetcher.vet = { venue, answer in check.vet(answer.price, from: venue, last: last, age: .seconds(1), at: now)?.0 }
        let round = await fetcher.fetch { _ in nil }
        #expect(round.attempts == [.failed(.binance, .unconfirmedPrice(try Price(parsing: "50000"), last: last)),
                                   .succeeded(.coinbase, SourceQuote(price: try Price(parsing: "100020"), symbol: "BTCUSD", quoteAsset: "USD"))],
                "\(round.attempts)")
        #expect(round.answers.map(\.source) == [.coinbase] && round.lateAnswers.isEmpty)
    }
}
