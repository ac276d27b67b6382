import ClientKit
import Testing
import WireProtocol

/// `btcctl alert --move`: once per move of the share within the window, from the window's
/// lowest (up) or highest (down) price, re-armed once the move is back under the band; fed the
/// quotes' own times.
@Suite("Move alert: once per move within the window")
struct MoveRuleTests {
    static let minute: Int64 = 60_000

    func kinds(_ events: [MoveRule.Event]) -> [String] {
        events.map { event in
            switch event {
            case .first: "first"
            case .moved(let direction, let from, let basisPoints): "\(direction.rawValue) \(basisPoints) from \(from)"
            case .rearmed(let direction): "rearmed \(direction.rawValue)"
            }
        }
    }

    @Test func aMoveFiresOnceReArmsUnderTheBandAndLeavesTheWindow() {
        var rule = MoveRule(basisPoints: 300, windowMilliseconds: 60 * Self.minute)
        var seen: [String] = []
        for (minutes, price) in [(0, "100000"), (10, "102000"), (20, "103000"), (21, "103500"), (30, "102400"),
                                 (40, "99800"), (90, "105600")] as [(Int64, String)] {
            let events = kinds(rule.observe(price, at: 1_700_000_000_000 + minutes * Self.minute))
            seen.append("\(minutes): " + events.joined(separator: ", "))
        }
        #expect(seen == ["0: first", "10: ", "20: up 300 from 100000", "21: ", "30: rearmed up", "40: down 357 from 103500",
                         // 100,000 and 103,500 left the window: the lowest since is 99,800 (minute 40), the highest 102,400.
                         "90: up 581 from 99800, rearmed down"], "\(seen)")
    }

    @Test func downOnlyIgnoresRisesAndMeasuresFromTheHigh() {
        var rule = MoveRule(basisPoints: 200, windowMilliseconds: 15 * Self.minute, directions: [.down])
        let start: Int64 = 1_700_000_000_000
        #expect(kinds(rule.observe("100000", at: start)) == ["first"])
        #expect(kinds(rule.observe("110000", at: start + Self.minute)).isEmpty, "a rise is no down move")
        #expect(kinds(rule.observe("107800.01", at: start + 2 * Self.minute)).isEmpty, "1.99 % under the high, truncated, is not 2 %")
        #expect(kinds(rule.observe("107800", at: start + 3 * Self.minute)) == ["down 200 from 110000"])
        #expect(kinds(rule.observe("108000", at: start + 4 * Self.minute)).isEmpty, "1.81 % under the high: still above the 1.5 % re-arm line")
        #expect(kinds(rule.observe("108500", at: start + 5 * Self.minute)) == ["rearmed down"], "1.36 %: under 2 % minus the 0.5 % band")
    }

    @Test func aSmallMoveReArmsWithinHalfOfItselfAndAnOlderQuoteIsLeftOut() {
        let rule = MoveRule(basisPoints: 40, windowMilliseconds: 5 * Self.minute, bandBasisPoints: 50)
        #expect(rule.rearmBelow == 20, "a 0.5 % band on a 0.4 % move would never re-arm; half the move does")
        var stepped = MoveRule(basisPoints: 300, windowMilliseconds: 60 * Self.minute)
        _ = stepped.observe("100000", at: 1_700_000_600_000)
        #expect(kinds(stepped.observe("50000", at: 1_700_000_000_000)).isEmpty, "a quote from before the newest is not a move into the past")
        #expect(kinds(stepped.observe("100100", at: 1_700_000_660_000)).isEmpty, "and was not kept: the low is still 100,000")
    }

    @Test("alert --move's words", arguments: [
        (["alert", "--move", "3%", "--within", "1h"], "3.00% either way within 1h"),
        (["alert", "--move", "0.5%", "--within", "15m", "--down", "--band", "0.1%"], "0.50% down within 15m, re-armed under 0.40%"),
    ])
    func theWordsMakeTheRule(arguments: [String], expected: String) throws {
        guard case .moveAlert(let rule, nil, false) = try CtlCommandLine.parse(arguments, socketFromEnvironment: nil).action else {
            Issue.record("\(arguments) is not a move alert")
            return
        }
        let ways = rule.directions.count == 2 ? "either way" : rule.directions[0].rawValue
        let described = "\(FixedDecimal.wirePercent(basisPoints: rule.basisPoints))% \(ways) within \(rule.windowText)"
            + (rule.rearmBelow == rule.basisPoints - 50 ? "" : ", re-armed under \(FixedDecimal.wirePercent(basisPoints: rule.rearmBelow))%")
        #expect(described == expected)
    }

    @Test("alert --move's usage errors", arguments: [
        ["alert", "--move", "3%"], ["alert", "--within", "1h"], ["alert", "--move", "3%", "--within", "1h", "--above", "120000"],
        ["alert", "--move", "3%", "--within", "1h", "--up", "--down"], ["alert", "--move", "3%", "--within", "1h", "--band", "250"],
        ["alert", "--move", "3", "--within", "1h"], ["alert", "--move", "60%", "--within", "1h"], ["alert", "--move", "3%", "--within", "8d"],
        ["alert", "--up"], ["price", "--move", "3%"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: CtlUsageError.self, "\(arguments)") { try CtlCommandLine.parse(arguments, socketFromEnvironment: nil) }
    }
}
