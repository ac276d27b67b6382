import PriceCore
import TestClocks
import Testing

/// One venue's glitch is held or refused; a second venue's price confirms or rejects it.
@Suite("Price check")
struct PriceCheckTests {
    let start = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
    func price(_ text: String) throws -> Price { try Price(parsing: text) }

    @Test func aSmallMoveIsServedAtOnce() throws {
        let check = PriceCheck(confirmMove: 0.05)
        let verdict = check.vet(try price("104900"), from: .binance, last: try price("100000"), age: .seconds(5), at: start)
        #expect(verdict == nil, "a 4.9 % move is no glitch: \(String(describing: verdict))")
        #expect(!check.awaitsConfirmation)
    }

    @Test func aLargeMoveWaitsForASecondVenueAndIsConfirmedByIt() throws {
        let check = PriceCheck(confirmMove: 0.05)
        let held = check.vet(try price("80000"), from: .binance, last: try price("100000"), age: .seconds(5), at: start)
        #expect(held?.0 == .unconfirmedPrice(try price("80000"), last: try price("100000")))
        #expect(held?.isNews == true)
        #expect(held?.0.description == "sent 80000, 20.0 % below the last quote 100000; held until another venue confirms it")
        let eighty = try price("80000")
        #expect(check.awaitsConfirmation && check.held(.binance) == eighty)

        // The same venue saying it again is no confirmation, and no news.
        let again = check.vet(try price("80010"), from: .binance, last: try price("100000"), age: .seconds(6), at: start.adding(milliseconds: 1000))
        #expect(again?.isNews == false, "\(String(describing: again))")
        let confirming = try price("80500")
        #expect(check.vet(confirming, from: .coinbase, last: try price("100000"), age: .seconds(6), at: start.adding(milliseconds: 1100)) == nil,
                "another venue within 1 % of the held price confirms it")
        let settled = check.served(confirming, from: .coinbase)
        #expect(settled.map(\.outcome) == [.confirmed(by: .coinbase, price: confirming)], "\(settled)")
        #expect(!check.awaitsConfirmation)
    }

    @Test func aGlitchIsRejectedByTheNextServedPriceAndLoggedOnce() throws {
        let check = PriceCheck(confirmMove: 0.05)
        let last = try price("100000")
        for second in 0..<3 {
            let now = start.adding(milliseconds: Int64(second) * 1000)
            let held = check.vet(try price("50000"), from: .binance, last: last, age: .seconds(2), at: now)
            #expect(held?.isNews == (second == 0), "second \(second): \(String(describing: held))")
            #expect(check.vet(try price("100020"), from: .coinbase, last: last, age: .seconds(2), at: now) == nil)
            let settled = check.served(try price("100020"), from: .coinbase)
            #expect(settled.map(\.outcome) == [.rejected(by: .coinbase, price: try price("100020"))])
            #expect(settled.map(\.isNews) == [second == 0], "the same wrong price is rejected every cycle, logged once")
        }
        // Binance right again, then wrong again: news again.
        #expect(check.vet(try price("100010"), from: .binance, last: last, age: .seconds(1), at: start.adding(milliseconds: 5000)) == nil)
        _ = check.served(try price("100010"), from: .binance)
        #expect(check.vet(try price("50000"), from: .binance, last: last, age: .seconds(1), at: start.adding(milliseconds: 6000))?.isNews == true)
    }

    @Test func aTenfoldPriceIsRefusedEvenWithTheMoveRuleOffUnlessAnotherVenueAgrees() throws {
        let check = PriceCheck(confirmMove: nil)
        let last = try price("100000")
        #expect(check.vet(try price("30000"), from: .binance, last: last, age: .seconds(5), at: start) == nil, "off: a 70 % move is served")
        let refused = check.vet(try price("1000001"), from: .binance, last: last, age: .seconds(30 * 60), at: start)
        #expect(refused?.0 == .implausiblePrice(try price("1000001"), last: last))
        #expect(refused?.0.description == "sent 1000001, more than ten times the last quote 100000; refused unless another venue agrees")
        #expect(check.vet(try price("9999"), from: .kraken, last: last, age: .seconds(5), at: start)?.0.description
                == "sent 9999, less than a tenth of the last quote 100000; refused unless another venue agrees")
        // The last quote was the glitch: two venues agreeing overrule it.
        #expect(check.vet(try price("1000500"), from: .coinbase, last: last, age: .seconds(5), at: start) == nil)
        #expect(check.vet(try price("1000001"), from: .bitstamp, last: last, age: .seconds(2 * 3600), at: start) == nil,
                "a quote hours old says nothing about today's price")
    }

    @Test func aMoveFromAQuoteAMinuteOldIsServedAndAnOldHoldConfirmsNothing() throws {
        let check = PriceCheck(confirmMove: 0.05)
        let last = try price("100000")
        #expect(check.vet(try price("80000"), from: .binance, last: last, age: .seconds(61), at: start) == nil,
                "the rule guards a recent quote only")
        #expect(check.vet(try price("80000"), from: .binance, last: last, age: .seconds(5), at: start) != nil)
        let later = start.adding(milliseconds: 61_000)
        #expect(check.vet(try price("80100"), from: .coinbase, last: last, age: .seconds(5), at: later) != nil,
                "a hold a minute old has expired: coinbase's own move is held now")
        let coinbases = try price("80100")
        #expect(check.held(.binance) == nil && check.held(.coinbase) == coinbases)
        check.use(confirmMove: nil)
        #expect(check.vet(try price("80100"), from: .kraken, last: last, age: .seconds(5), at: later) == nil, "a reload turned it off")
        #expect(check.served(try price("80100"), from: .kraken).map(\.outcome) == [.confirmed(by: .kraken, price: try price("80100"))])
    }

    @Test func aVenuesOwnHoldServedAfterAMinuteIsSaidSo() throws {
        let check = PriceCheck(confirmMove: 0.05)
        _ = check.vet(try price("80000"), from: .binance, last: try price("100000"), age: .seconds(30), at: start)
        #expect(check.served(try price("80000"), from: .binance).map(\.outcome) == [.servedUnconfirmed])
    }
}
