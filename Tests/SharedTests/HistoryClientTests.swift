import CivilTime
import ClientKit
import JSONText
import Testing
import WireProtocol

@Suite("btcctl: chart, change, thresholds and wait")
struct HistoryClientTests {
    func reply(_ closes: [String?], range: HistoryRange = .day) -> HistoryReply {
        HistoryReply(range: range, points: closes.enumerated().map { .init(time: "2026-11-21T16:\(10 + $0.offset):00Z", close: $0.element) })
    }

    func chart(_ closes: [String?]) -> String? { ChartFormat.line(reply(closes), fixedWidth: true, columns: nil) }

    func status(_ price: String, change24h: String? = nil, state: StatusMessage.State = .fresh) -> StatusMessage {
        StatusMessage(price: price, symbol: "BTCUSDT", source: "binance", timestamp: "2026-11-21T16:00:00.123Z", ageMilliseconds: 400,
                      state: state, lastError: nil, version: "0.1.0",
                      trend: .init(change1h: "0.10", change24h: change24h, change7d: "-3.40", open24h: "100000", high24h: "120000", low24h: "90000"))
    }

    @Test func theChartShowsTheShapeWithFirstLastLowHighAndChange() {
        #expect(chart(["100", "90", "80", "90", "100", "110", "120", "130"])
                == "▄▂▁▂▄▅▇█  24h recorded  100.00 → 130.00  +30.00%  low 80.00  high 130.00")
        #expect(chart(["114459.8", "114000.1"]) == "█▁  24h recorded  114,459.80 → 114,000.10  -0.40%  low 114,000.10  high 114,459.80")
    }

    @Test func theChartWritesPricesInTheDaemonsCurrency() {
        func chart(_ closes: [String], currency: String) -> String? {
            ChartFormat.line(HistoryReply(range: .day, currency: currency, points: closes.enumerated().map {
                .init(time: "2026-11-21T16:\(10 + $0.offset):00Z", close: $0.element)
            }), fixedWidth: true, columns: nil)
        }
        #expect(chart(["89712.451", "89000.1"], currency: "EUR") == "█▁  BTC/EUR 24h recorded  €89,712.45 → €89,000.10  -0.79%  low €89,000.10  high €89,712.45")
        #expect(chart(["15234567.4", "15100000"], currency: "JPY") == "█▁  BTC/JPY 24h recorded  ¥15,234,567 → ¥15,100,000  -0.88%  low ¥15,100,000  high ¥15,234,567")
        // A stablecoin quote is labelled as such and gets no dollar sign.
        #expect(chart(["114459.8", "114500"], currency: "USDT") == "▁█  BTC/USDT 24h recorded  114,459.80 → 114,500.00  +0.04%  low 114,459.80  high 114,500.00")
    }

    @Test func flatSingleAndGappyCharts() {
        #expect(chart(["5", "5", "5"])?.hasPrefix("▄▄▄  24h") == true, "all equal sits in the middle")
        #expect(chart([nil, "7", nil])?.contains("24h recorded since 16:11 UTC  7.00 → 7.00  0.00%") == true,
                "a single point, gaps as spaces, and a history younger than the range says so: \(chart([nil, "7", nil]) ?? "nil")")
        #expect(chart([nil, nil]) == nil, "no price at all is no chart")
        #expect(chart(["1", nil, "3"])?.hasPrefix("▁ █ ") == true)
    }

    @Test func aTinyChangeIsNeverANegativeZero() {
        #expect(chart(["100000", "99999.996"])?.contains("  0.00%  ") == true)
        #expect(chart(["100000", "99995"])?.contains("  -0.01%  ") == true, "half away from zero")
    }

    @Test func onATerminalTheSparklineNarrowsToFitTheLine() throws {
        let closes: [String?] = (0..<200).map { "\(100 + $0)" }
        let line = try #require(ChartFormat.line(reply(closes), fixedWidth: false, columns: 100))
        #expect(line.count == 100)
        #expect(line.hasSuffix("low 100.00  high 299.00") && line.first == "▁")
    }

    /// The summary's figures, whatever the width; the low's cell shows the low; the line fits
    /// the terminal, the summary shortening before the sparkline drops below 16 cells.
    @Test func theSummaryGivesTheFiguresAndKeepsTheExtremesAndTheLineFits() throws {
        let closes: [String?] = (0..<60).map { "\(100_000 + ($0 % 10) * 96)" }
        let summary = HistoryReply.Summary(since: "2026-11-21T16:10:00Z", open: "100000", close: "100864", low: "95000",
                                           lowAt: "2026-11-21T16:40:00Z", high: "100960", highAt: "2026-11-21T16:19:00Z")
        var full = reply(closes)
        full = HistoryReply(range: .day, currency: "USD", points: full.points, summary: summary)
        let wide = try #require(ChartFormat.line(full, fixedWidth: true, columns: nil))
        #expect(wide.hasSuffix("  BTC/USD 24h recorded since 16:10 UTC  $100,000.00 → $100,864.00  +0.86%  low $95,000.00  high $100,960.00"), "\(wide)")
        #expect(wide.prefix(60).filter { $0 == "▁" }.count == 1, "the extreme minute's cell, and only it, at the bottom: \(wide)")
        for columns in [80, 60, 30] {
            let line = try #require(ChartFormat.line(full, fixedWidth: false, columns: columns))
            let cells = line.prefix { "▁▂▃▄▅▆▇█ ".contains($0) }
            #expect(line.count <= columns && cells.count >= min(16, columns), "\(columns) columns: \(line.count) characters, \(cells.count) cells: \(line)")
            #expect(cells.contains("▁"), "the low survives narrowing: \(line)")
        }
    }

    @Test func filledMinutesAreNamedOnALineOfTheirOwnThatFitsTheTerminal() throws {
        let closes: [String?] = (0..<60).map { "\(100_000 + $0)" }
        let summary = HistoryReply.Summary(since: "2026-11-21T16:10:00Z", open: "100000", close: "100059", low: "100000",
                                           lowAt: "2026-11-21T16:10:00Z", high: "100059", highAt: "2026-11-21T17:09:00Z")
        let filled = HistoryReply(range: .day, currency: "USD", points: reply(closes).points, summary: summary, filled: [
            .init(from: "2026-11-21T16:10:00Z", through: "2026-11-21T16:39:00Z", source: "binance"),
            .init(from: "2026-11-21T16:45:00Z", through: "2026-11-21T16:50:00Z", source: "binance"),
            .init(from: "2026-11-21T16:51:00Z", through: "2026-11-21T16:52:00Z", source: "\u{1b}[31mevil"),
        ])
        let wide = try #require(ChartFormat.line(filled, fixedWidth: true, columns: nil)).split(separator: "\n").map(String.init)
        #expect(wide.count == 3 && wide[0].contains("24h recorded and filled since 16:10 UTC"), "\(wide)")
        #expect(wide[1] == "  filled from binance candles: 2026-11-21 16:10 → 2026-11-21 16:50 UTC", "one line per venue, its first and last minute: \(wide)")
        #expect(!wide[2].contains("\u{1b}"), "a venue's name is the daemon's text, made printable: \(wide[2].debugDescription)")
        let narrow = try #require(ChartFormat.line(filled, fixedWidth: false, columns: 40)).split(separator: "\n").map(String.init)
        #expect(narrow.allSatisfy { $0.count <= 40 } && narrow[1] == "  filled from binance candles", "\(narrow)")
        #expect(ChartFormat.line(reply(closes), fixedWidth: true, columns: nil)?.contains("\n") == false, "no fill, one line as before")
    }

    /// A year of days, 2025-11-29 to 2026-11-28: a close rising a dollar a day from 100,000, one
    /// day's low at 90,000 and one day's high at 120,000 inside it.
    func year(days: Int = 365, from first: Int64 = 20_421) -> DailyReply {
        DailyReply(currency: "USD", days: (0..<days).map { index in
            let close = "\(100_000 + index)"
            return .init(date: CivilDate.text(ofDay: first + Int64(index)), open: close, high: index == 200 ? "120000" : close,
                         low: index == 100 ? "90000" : close, close: close)
        })
    }

    @Test func aYearIsDrawnFromTheDailyBarsWithItsLowAndHighDaysAtAnyWidth() throws {
        let since = CivilDate.text(ofDay: 20_421)
        let wide = try #require(ChartFormat.year(year(), since: since, cells: nil, columns: nil))
        let cells = wide.prefix { "▁▂▃▄▅▆▇█".contains($0) }
        #expect(cells.count == 365, "a cell a day: \(cells.count)")
        #expect(wide.hasSuffix("  BTC/USD 1y daily  $100,000.00 → $100,364.00  +0.36%  low $90,000.00  high $120,000.00"), "\(wide.suffix(90))")
        for columns in [200, 120, 80, 40] {
            let line = try #require(ChartFormat.year(year(), since: since, cells: nil, columns: columns))
            let shown = line.prefix { "▁▂▃▄▅▆▇█".contains($0) }
            #expect(line.count <= columns && shown.count >= 16, "\(columns) columns: \(line.count) characters, \(shown.count) cells: \(line)")
            #expect(shown.contains("▁") && shown.contains("█"), "the year's low and high days survive narrowing: \(line)")
        }
        let fixed = try #require(ChartFormat.year(year(), since: since, cells: 52, columns: 30))
        #expect(fixed.prefix { "▁▂▃▄▅▆▇█".contains($0) }.count == 52 && fixed.contains("→"), "--width is kept whatever the terminal: \(fixed)")
        let young = try #require(ChartFormat.year(year(days: 30, from: 20_756), since: since, cells: nil, columns: nil))
        #expect(young.contains("  BTC/USD 1y daily since 2026-10-30  "), "a shorter history says since when: \(young.suffix(90))")
        #expect(ChartFormat.year(DailyReply(currency: "USD", days: []), since: since, cells: nil, columns: nil) == nil)
    }

    @Test func civilDatesAcrossLeapYearsAndTheEpoch() {
        #expect(CivilDate.text(ofDay: 0) == "1970-01-01" && CivilDate.text(ofDay: 17_395) == "2017-08-17")
        #expect(CivilDate.text(ofDay: 19_417) == "2023-03-01" && CivilDate.text(ofDay: 19_782) == "2024-02-29")
        #expect(CivilDate.text(ofDay: 20_786) == "2026-11-29" && CivilDate.text(ofDay: -1) == "1969-12-31")
        for day in stride(from: Int64(0), to: 25_000, by: 37) {
            let minutes = ChartFormat.epochMinutes(CivilDate.text(ofDay: day) + "T00:00")
            #expect(minutes == day * 1440, "day \(day) → \(CivilDate.text(ofDay: day)) → \(String(describing: minutes))")
        }
    }

    @Test func waybarCarriesDirectionAndThresholdClassesAndTheTooltipTheChanges() throws {
        let up = try JSONValue(parsing: BarFormat.waybar(status("114459.8", change24h: "1.27"), spark: "▁▂▃▄▅▆▇█",
                                                          thresholds: PriceThresholds(above: "114000")))
        #expect(up["class"] == .array([.string("fresh"), .string("up"), .string("above")]))
        let tooltip = try #require(up["tooltip"]?.stringValue)
        #expect(tooltip.contains("1h +0.10%  24h ▲ +1.27%  7d -3.40%") && tooltip.contains("24h ▁▂▃▄▅▆▇█"))
        #expect(tooltip.contains("24h low $90,000, high $120,000"), "whole units, as the bar: \(tooltip)")
        let down = try JSONValue(parsing: BarFormat.waybar(status("79000", change24h: "-0.50"), thresholds: PriceThresholds(above: "90000", below: "80000")))
        #expect(down["class"] == .array([.string("fresh"), .string("down"), .string("below")]))
        let flat = try JSONValue(parsing: BarFormat.waybar(status("1", change24h: "0.00")))
        #expect(flat["class"] == .array([.string("fresh")]))
    }

    @Test func i3blocksColoursAFreshPriceByThresholdThenDirection() {
        #expect(BarFormat.i3blocks(status("100", change24h: "-1.00")).hasSuffix("\n#BF616A"))
        #expect(BarFormat.i3blocks(status("100", change24h: "1.00")).hasSuffix("\n#A3BE8C"))
        #expect(BarFormat.i3blocks(status("100", change24h: "1.00"), thresholds: PriceThresholds(above: "100")).hasSuffix("\n#88C0D0"))
        #expect(BarFormat.i3blocks(status("100", change24h: "-1.00", state: .stale), thresholds: PriceThresholds(below: "200")).hasSuffix("\n#EBCB8B"),
                "a stale price keeps the stale colour")
        #expect(BarFormat.prompt(status("79999.99"), thresholds: PriceThresholds(below: "80000")) == "₿80k↓")
        #expect(BarFormat.prompt(status("80000.01"), thresholds: PriceThresholds(below: "80000")) == "₿80k")
    }

    @Test func templatesGainChangesArrowAndSpark() {
        let text = Template.render("{arrow}{change_24h}% 1h {change_1h} 7d {change_7d} {spark}", status("1", change24h: "-1.27"), spark: "▁█")
        #expect(text == "▼-1.27% 1h 0.10 7d -3.40 ▁█")
        #expect(Template.render("{arrow}{change_24h}", StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil,
                                                                       state: .nodata, lastError: nil, version: "0.1.0")) == "")
    }

    @Test func theStatusReportShowsChangesAndColoursOnlyWhenAsked() {
        let plain = HumanFormat.status(status("114459.8", change24h: "1.27"))
        #expect(plain.contains("change:     1h +0.10%  24h ▲ +1.27%  7d -3.40%\n") && !plain.contains("\u{1B}"))
        #expect(plain.contains("24h range:  $90,000.00 – $120,000.00\n"), "no word without a day_from: \(plain)")
        var venue = status("114459.8", change24h: "1.27")
        venue.trend.dayFrom = "venue"
        #expect(HumanFormat.status(venue).contains("24h range:  $90,000.00 – $120,000.00  (venue)\n"), "\(HumanFormat.status(venue))")
        #expect(HumanFormat.status(status("114459.8", change24h: "-1.27"), color: true).contains("\u{1B}[31m24h ▼ -1.27%\u{1B}[0m"))
    }

    func parse(_ arguments: [String]) throws(CtlUsageError) -> CtlAction {
        try CtlCommandLine.parse(arguments, socketFromEnvironment: nil).action
    }

    @Test func chartAndWaitParse() throws {
        #expect(try parse(["chart"]) == .chart(range: .minutes(.day), width: nil, json: false))
        #expect(try parse(["chart", "--range", "7d", "--width=30", "--json"]) == .chart(range: .minutes(.week), width: 30, json: true))
        #expect(try parse(["chart", "--range", "1y"]) == .chart(range: .year, width: nil, json: false))
        #expect(try parse(["wait", "--below", "80000", "--timeout", "2h"]) == .wait(thresholds: PriceThresholds(below: "80000"), timeoutMilliseconds: 7_200_000))
        #expect(try parse(["wait", "--above", "150000.5"]) == .wait(thresholds: PriceThresholds(above: "150000.5"), timeoutMilliseconds: nil))
    }

    @Test("malformed thresholds and chart options are usage errors", arguments: [
        ["wait"], ["wait", "--above", "1e5"], ["wait", "--below", "-5"], ["wait", "--below", "0"], ["wait", "--above", "80,000"],
        ["wait", "--above", "1", "--timeout", "8d"], ["price", "--above", "1"], ["chart", "--range", "2d"], ["chart", "--width", "0"],
        ["chart", "--width", "1001"], ["status", "--range", "1h"], ["waybar", "--above"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: CtlUsageError.self) { try parse(arguments) }
    }
}
