import ClientKit
import Testing
import WireProtocol

/// `btcctl alert`'s hysteresis, price by price, and its arguments.
@Suite("Alert rule: once per crossing, re-armed beyond the band")
struct AlertRuleTests {
    func kinds(_ events: [AlertRule.Event]) -> [String] {
        events.map { event in
            switch event {
            case .crossed(let line): "crossed \(line.direction.rawValue)"
            case .alreadyPast(let line): "already \(line.direction.rawValue)"
            case .rearmed(let line): "rearmed \(line.direction.rawValue)"
            }
        }
    }

    @Test func aPriceHoveringAtTheLineFiresOnceUntilItComesBackBeyondTheBand() {
        var rule = AlertRule(thresholds: PriceThresholds(above: "120000"), band: AlertRule.Band("0.5%")!)
        #expect(rule.lines.first?.rearmAt.text == "119400")
        let prices = ["119000", "120000", "119990", "120010", "119500", "120500", "119400", "119399.99", "119900", "120000.01"]
        let events = prices.map { kinds(rule.observe($0)) }
        #expect(events == [[], ["crossed above"], [], [], [], [], [], ["rearmed above"], [], ["crossed above"]], "\(events)")
    }

    @Test func belowMirrorsAboveAndBothLinesAreIndependent() {
        var rule = AlertRule(thresholds: PriceThresholds(above: "120000", below: "80000"), band: AlertRule.Band("250")!)
        #expect(rule.lines.map(\.rearmAt.text) == ["119750", "80250"])
        let events = ["100000", "79999", "80100", "80250", "80250.01", "80000", "121000"].map { kinds(rule.observe($0)) }
        #expect(events == [[], ["crossed below"], [], [], ["rearmed below"], ["crossed below"], ["crossed above", "rearmed below"]], "\(events)")
    }

    @Test func aThresholdAlreadyPastAtTheFirstPriceWaitsForTheReturn() {
        var rule = AlertRule(thresholds: PriceThresholds(above: "100000"))
        let events = ["114459.8", "120000", "99500", "99499", "100000"].map { kinds(rule.observe($0)) }
        #expect(events == [["already above"], [], [], ["rearmed above"], ["crossed above"]], "\(events)")
    }

    @Test func aZeroBandStillNeedsTheLineLeftBeforeItFiresAgain() {
        var rule = AlertRule(thresholds: PriceThresholds(below: "80000"), band: AlertRule.Band("0%")!)
        let events = ["80001", "80000", "80000", "80000.01", "80000"].map { kinds(rule.observe($0)) }
        #expect(events == [[], ["crossed below"], [], ["rearmed below"], ["crossed below"]], "\(events)")
    }

    @Test func bandsAndCommandsAreParsedOrRefusedByName() throws {
        #expect(AlertRule.Band("1%") == .basisPoints(100))
        #expect(AlertRule.Band("0.25%") == .basisPoints(25))
        for bad in ["0.125%", "51%", "-1%", "x%", "-5", "abc"] { #expect(AlertRule.Band(bad) == nil, "\(bad)") }
        #expect(try ChildCommand(parsing: #"notify-send "BTC moved" 'a b' c\ d"#).words == ["notify-send", "BTC moved", "a b", "c d"])
        #expect(try ChildCommand(parsing: "sh -c 'echo $BTC_PRICE >> /tmp/x'").words == ["sh", "-c", "echo $BTC_PRICE >> /tmp/x"])
        #expect(throws: CtlUsageError.self) { _ = try ChildCommand(parsing: "echo 'open") }
        #expect(throws: CtlUsageError.self) { _ = try ChildCommand(parsing: "  ") }
    }

    @Test func theUnitsInstanceNameGivesTheThresholds() throws {
        func action(_ arguments: [String]) throws(CtlUsageError) -> CtlAction { try CtlCommandLine.parse(arguments, socketFromEnvironment: nil).action }
        #expect(try action(["alert", "--notify", "--thresholds", "below-80000_above-120000"])
                == .alert(thresholds: PriceThresholds(above: "120000", below: "80000"), band: .standard, exec: nil, notify: true))
        #expect(try action(["alert", "--above", "1", "--band", "1%", "--exec", "logger btc"])
                == .alert(thresholds: PriceThresholds(above: "1"), band: .basisPoints(100), exec: ChildCommand(words: ["logger", "btc"]), notify: false))
        let refused: [([String], String)] = [
            (["alert"], "alert needs --above P, --below P or both"),
            (["alert", "--thresholds", "under-5"], "is not below-P or above-P"),
            (["alert", "--thresholds", "below-abc"], "positive decimal price"),
            (["alert", "--below", "5", "--thresholds", "below-6"], "below is given twice"),
            (["price", "--notify"], "--notify does not apply to price"),
            (["alert", "--above", "1", "--band", "2x"], "--band needs a percent"),
        ]
        for (arguments, message) in refused {
            do {
                _ = try action(arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(error.message.contains(message), "\(arguments): \(error.message)")
            }
        }
    }
}
