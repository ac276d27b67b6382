import DaemonKit
import DaemonKitTesting
import InMemoryLogging
import Logging
import PriceCore
import Testing
import TestClocks

/// A host clock set wrong while the venues answer: ages stay honest, and the journal says so once.
@Suite("Honest ages on a wrong host clock, through the intake")
struct HostClockTests {
    let hour: Int64 = 3_600_000

    /// One answer sent `travel` ms ago on the venues' clock, `venueBehind` ms behind the host's,
    /// with its price from `made` ms before that (a ticker's time); its `Date` says when it left.
    func answer(_ price: String, wallClock: ManualWallClock, venueBehind: Int64 = 0, travel: Int64 = 50, made: Int64 = 0) throws -> CycleReport {
        let sent = wallClock.now().adding(milliseconds: -venueBehind - travel)
        let reading = PolledReading(price: try Price(parsing: price), currency: "USD", symbol: "BTC-USD", source: .coinbase,
                                    origins: [AnswerOrigin(time: sent.adding(milliseconds: -made), venueClock: sent)])
        return CycleReport(reading: reading, failureSummary: nil, nextCycleIn: .seconds(1))
    }

    @Test func aStepForwardWhileHealthyLeavesEveryAnswerFreshAndIsSaidOnce() throws {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(10))
        let logs = InMemoryLogHandler()
        let intake = makeIntake(board, logger: Logger(label: "btcpriced") { _ in logs })
        for second in 0..<10 {
            intake.accept(try answer("100000.\(second)", wallClock: wallClock))
            clock.advance(by: .seconds(1))
            wallClock.advance(milliseconds: 1_000)
        }
        #expect(intake.hostClock.estimate == .milliseconds(50), "the quickest answer was made 50 ms before it came")
        wallClock.advance(milliseconds: hour)
        // Each price is from 400 ms before its answer left: that much old, whatever the host says.
        // (The quickest answer's travel counts as offset: 50 ms the estimate cannot tell apart.)
        for second in 0..<20 {
            intake.accept(try answer("100001.\(second)", wallClock: wallClock, venueBehind: hour, made: 400))
            let freshness = board.freshness()
            #expect(freshness.state == .fresh && freshness.ageMilliseconds == 400,
                    "answer \(second) after the step: \(freshness.state), \(String(describing: freshness.ageMilliseconds)) ms old")
            clock.advance(by: .milliseconds(1_000))
            wallClock.advance(milliseconds: 1_000)
        }
        #expect(board.priceReply() == "100001.19\n")
        let offset = try #require(intake.hostClock.estimate)
        #expect(offset > .milliseconds(hour) && offset < .milliseconds(hour + 1_100), "\(offset)")
        let warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings == ["the host clock is 3,600 s ahead of the venues' clocks; ages are corrected; check NTP (systemd-timesyncd)"],
                "\(warnings)")
    }

    @Test func aStepIsNoticedOnceAndTheHistoryStaysOnTheVenuesTime() throws {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(10))
        let logs = InMemoryLogHandler()
        let intake = makeIntake(board, logger: Logger(label: "btcpriced") { _ in logs })
        for second in 0..<5 {
            intake.accept(try answer("100000.\(second)", wallClock: wallClock))
            clock.advance(by: .seconds(1))
            wallClock.advance(milliseconds: 1_000)
        }
        let venueMinute = MinuteBar.minute(of: wallClock.now())
        // NTP steps a clock that ran a day ahead... the other way: the box booted a day behind.
        wallClock.advance(milliseconds: -24 * hour)
        for second in 0..<5 {
            intake.accept(try answer("100001.\(second)", wallClock: wallClock, venueBehind: -24 * hour))
            clock.advance(by: .seconds(1))
            wallClock.advance(milliseconds: 1_000)
        }
        // A failed cycle looks too: a second step during an outage is named as well.
        wallClock.advance(milliseconds: 2 * hour)
        intake.accept(CycleReport(reading: nil, failureSummary: "binance: HTTP 503", nextCycleIn: .seconds(1)))
        let notices = logs.entries.filter { $0.level == .notice }.map { "\($0.message)" }.filter { $0.hasPrefix("the host clock stepped") }
        #expect(notices.count == 2 && notices[0].hasPrefix("the host clock stepped back by 86,400 s;")
                    && notices[1].hasPrefix("the host clock stepped forward by 7,200 s;"), "one line a step: \(notices)")
        let minutes = board.history.minutes.bars.map(\.minute)
        #expect(minutes.allSatisfy { $0 >= venueMinute - 1 && $0 <= venueMinute + 1 },
                "every bar filed under the venues' minutes (\(venueMinute)), none a day back: \(minutes)")
    }

    @Test func aStepBackDuringAnOutageStillTurnsTheQuoteStale() throws {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(10))
        let logs = InMemoryLogHandler()
        let intake = makeIntake(board, logger: Logger(label: "btcpriced") { _ in logs })
        intake.accept(try answer("100000", wallClock: wallClock))
        // The venues stop answering; the host clock steps back an hour a second later.
        clock.advance(by: .seconds(1))
        wallClock.advance(milliseconds: 1_000 - hour)
        clock.advance(by: .milliseconds(10_000 + 1_500 - 1_000))
        wallClock.advance(milliseconds: 10_000 + 1_500 - 1_000)
        let freshness = board.freshness()
        #expect(freshness.state == .stale && freshness.ageMilliseconds == 11_550,
                "STALE_AFTER + 1.5 s into the outage: \(freshness.state), \(String(describing: freshness.ageMilliseconds)) ms old")
        // Answers again: they are dated right, and the journal hears once that the clock is wrong.
        intake.accept(try answer("100002", wallClock: wallClock, venueBehind: -hour, made: 400))
        #expect(board.freshness().state == .fresh && board.freshness().ageMilliseconds == 400, "\(board.freshness())")
        let warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings == ["the host clock is 3,600 s behind the venues' clocks; ages are corrected; check NTP (systemd-timesyncd)"],
                "\(warnings)")
    }

    @Test func aClockSetRightAgainIsSaidOnceAndTheCorrectionEnds() throws {
        let (board, clock, wallClock) = makeBoard(staleAfter: .seconds(10))
        let logs = InMemoryLogHandler()
        let intake = makeIntake(board, logger: Logger(label: "btcpriced") { _ in logs })
        intake.accept(try answer("100000", wallClock: wallClock))
        wallClock.advance(milliseconds: hour)
        // Corrected, a price made 400 ms before its answer left is 400 ms old; on a right clock,
        // 450 ms with the travel.
        for (second, (behind, age)) in [(hour, 400), (hour, 400), (0, 450), (0, 450), (0, 450)].enumerated() {
            if second == 2 { wallClock.advance(milliseconds: -hour) }
            clock.advance(by: .seconds(1))
            wallClock.advance(milliseconds: 1_000)
            intake.accept(try answer("10000\(second)", wallClock: wallClock, venueBehind: behind, made: 400))
            #expect(board.freshness().ageMilliseconds == Int64(age), "answer \(second): \(board.freshness())")
        }
        // (The steps themselves have lines of their own, one each.)
        let said = logs.entries.filter { $0.level >= .notice }.map { "\($0.level) \($0.message)" }.filter { !$0.contains("the host clock stepped") }
        #expect(logs.entries.filter { "\($0.message)".hasPrefix("the host clock stepped") }.count == 2)
        #expect(said.count == 2 && said[0].hasPrefix("warning the host clock is 3,600 s ahead")
                && said[1] == "notice the host clock agrees with the venues' clocks again; ages need no correction", "\(said)")
    }
}
