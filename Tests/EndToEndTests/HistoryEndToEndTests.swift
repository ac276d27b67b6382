import FakeExchange
import Foundation
import JSONText
import Testing

@Suite("History, change and thresholds, end to end")
struct HistoryEndToEndTests {
    /// A V over the last 24 h, as a previous run would have left it: 108,000 a day ago (for ten
    /// minutes), down to 90,000 twelve hours ago, back to 107,975 a minute ago.
    func writeDayOfHistory(into directory: String) throws {
        let now = Int64(Date().timeIntervalSince1970) / 60
        var text = "btcpriced-history 1\n"
        for index in Int64(0)..<1440 {
            // Flat for the first ten minutes, so a test that crosses a minute keeps its reference.
            text += "\(now - 1440 + index) \(index < 10 ? 108_000 : 90_000 + abs(index - 720) * 25)\n"
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: directory + "/history.txt", atomically: true, encoding: .utf8)
    }

    func field(_ key: String, of line: String) throws -> JSONValue? { try JSONValue(parsing: line)[key] }

    @Test func theDayChangeSurvivesARestartAndTheChartShowsThePath() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "118800")
        // Binance alone: on a loaded host an answer can miss the timeout, and the next venue's
        // quote (BTC/USD) would then label the chart this test reads as BTC/USDT.
        let first = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { first.stop(); first.removeFiles() }
        try writeDayOfHistory(into: first.stateDirectory)
        try await first.start()
        try await until("the live price") { try await first.ctl("price").stdout == "118800\n" }
        let status = try await first.ctl("status", "--json").stdout
        #expect(try field("change_24h", of: status) == .string("10.00"), "118,800 against 108,000 a day ago: \(status)")
        #expect(try field("open_24h", of: status) == .string("108000"))
        #expect(try field("low_24h", of: status) == .string("90000") && field("high_24h", of: status) == .string("118800"))

        let chart = try await first.ctl("chart", "--width", "8")
        #expect(chart.status == 0)
        let cells = Array(chart.stdout.prefix(8))
        #expect(cells.last == "█" && cells.contains("▁") && cells.firstIndex(of: "▁")! > 0, "a V ending high: \(chart.stdout)")
        #expect(chart.stdout.contains("BTC/USDT 24h recorded  108,000.00 → 118,800.00"), "no dollar sign on USDT: \(chart.stdout)")

        let waybar = try await first.ctl("waybar", "--above", "118000")
        #expect(try field("class", of: waybar.stdout) == .array([.string("fresh"), .string("up"), .string("above")]))
        #expect(try await first.ctl("prompt", "--below", "120000").stdout == "₿118.8k↓\n")

        first.stop()
        #expect(try String(contentsOfFile: first.stateDirectory + "/history.txt", encoding: .utf8).hasSuffix(" 118800\n"),
                "the minute the first run saw is saved at shutdown")

        // Offline now: what the second run knows comes from the files alone.
        exchange.set(.binance, .hang)
        let second = try DaemonProcess(exchangeURL: exchange.baseURL, directory: first.directory, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { second.stop() }
        try await second.start()
        let restored = try await second.ctl("status", "--json").stdout
        #expect(try field("price", of: restored) == .string("118800"))
        #expect(try field("change_24h", of: restored) == .string("10.00"), "\(restored)")
        let lastHour = try await second.ctl("chart", "--range", "1h", "--json").stdout
        #expect(lastHour.contains(#""118800"]"#))
        await exchange.shutdown()
    }

    /// An earlier run's state: a minute a price from three days back until now (90,000 plus a
    /// thousand a day plus the minute of the day), and a day from 2020. Returns today's day.
    static func keepThreeDaysAndOneFrom2020(_ daemon: DaemonProcess) throws -> Int64 {
        let now = Int64(Date().timeIntervalSince1970) / 60, today = now / 1440
        var minutes = "btcpriced-history 1\n"
        for minute in (today - 3) * 1440..<now { minutes += "\(minute) \(90_000 + (minute / 1440 - today + 3) * 1000 + minute % 1440)\n" }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try minutes.write(toFile: daemon.stateDirectory + "/history.txt", atomically: true, encoding: .utf8)
        try "btcpriced-daily 1 USD\n2020-01-01 7200 7250.5 7100 7210.25\n".write(toFile: daemon.stateDirectory + "/daily.txt", atomically: true, encoding: .utf8)
        return today
    }

    /// The price at a moment from the same kept state, as btcctl and mempool's route give it:
    /// a minute of yesterday, a day of 2020, nothing before it and nothing to come.
    @Test func thePriceAtAMomentComesFromTheMinutesOrTheDaysKept() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100000")
        let port = try freePort()
        // Coinbase alone: its quotes are in USD, which names the prices (Binance's would be USDT).
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_HTTP_LISTEN": "127.0.0.1:\(port)", "BTCPRICED_SOURCES": "coinbase"])
        defer { daemon.stop(); daemon.removeFiles() }
        let today = try Self.keepThreeDaysAndOneFrom2020(daemon)
        try await daemon.start()
        try await until("a first quote", context: { daemon.log }) { try await daemon.ctl("price").status == 0 }

        let yesterdayTen = (today - 1) * 86_400 + 36_000
        let iso = ISO8601DateFormatter()
        let moment = String(iso.string(from: Date(timeIntervalSince1970: TimeInterval(yesterdayTen))).prefix(16)) + "Z"
        let minute = try await daemon.ctl("history", "--at", moment)
        #expect(minute.status == 0 && minute.stdout == "BTC/USD  $92,600.00  \(iso.string(from: Date(timeIntervalSince1970: TimeInterval(yesterdayTen)))), that minute's close\n",
                "\(minute)")
        let day = try await daemon.ctl("history", "--at", "2020-01-01T12:00Z", "--json")
        #expect(day.status == 0 && day.stdout == #"{"at":1577880000,"currency":"USD","time":1577836800,"price":"7210.25","from":"day"}"# + "\n", "\(day)")
        let before = try await daemon.ctl("history", "--at", "2019-06-01")
        #expect(before.status == 3 && before.stderr.contains("is before the first day kept (2020-01-01)"), "\(before)")

        let http = try await HTTPEndToEndTests.curl(["-i", "http://127.0.0.1:\(port)/api/v1/historical-price?currency=USD&timestamp=\(yesterdayTen + 30)"]).stdout
        #expect(http.contains("X-Price-From: minute\r\n") && http.hasSuffix(#"{"prices":[{"time":\#(yesterdayTen),"USD":92600}],"exchangeRates":{}}"# + "\n"),
                "\(http)")
        let later = try await HTTPEndToEndTests.curl(["-o", "/dev/null", "-w", "%{http_code}",
                                                      "http://127.0.0.1:\(port)/api/v1/historical-price?timestamp=\(yesterdayTen + 3 * 86_400)"]).stdout
        #expect(later == "400", "a moment to come: \(later)")
        await exchange.shutdown()
    }

    /// Three whole days of minutes and a day from 2020 kept from an earlier run: the days are
    /// made at start, served from a date on as CSV and faraday's rows, and written to daily.txt.
    @Test func daysAreMadeFromTheMinutesKeptBesideOlderOnesAndServedAsCSV() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100000")
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        let today = try Self.keepThreeDaysAndOneFrom2020(daemon)
        try await daemon.start()

        func date(_ day: Int64) -> String { String(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(day * 86_400))).prefix(10)) }
        let csv = try await daemon.ctl("history", "--daily", "--csv")
        #expect(csv.status == 0 && csv.stdout == """
        date,open,high,low,close
        2020-01-01,7200,7250.5,7100,7210.25
        \(date(today - 3)),90000,91439,90000,91439
        \(date(today - 2)),91000,92439,91000,92439
        \(date(today - 1)),92000,93439,92000,93439

        """, "the kept day, then each whole day of minutes; not today: \(csv.stdout)\n\(csv.stderr)")
        let faraday = try await daemon.ctl("history", "--daily", "--since", date(today - 1), "--csv", "--faraday")
        #expect(faraday.stdout == "\(today * 86_400),93439\n", "yesterday's close as it ended: \(faraday.stdout)")
        let none = try await daemon.ctl("history", "--daily", "--since", date(today + 1))
        #expect(none.status == 3 && none.stdout.isEmpty && none.stderr.contains("no daily prices since"), "\(none)")

        daemon.stop()
        let saved = try String(contentsOfFile: daemon.stateDirectory + "/daily.txt", encoding: .utf8)
        #expect(saved.hasPrefix("btcpriced-daily 1 USD\n2020-01-01 7200 7250.5 7100 7210.25\n") && saved.hasSuffix("\(date(today - 1)) 92000 93439 92000 93439\n"),
                "\(saved)")
        await exchange.shutdown()
    }

    /// A saw-tooth day with one minute at 95,000: the chart's figures come from every minute
    /// bar, so they are the same at every width, and the dip shows at every width.
    @Test func theChartsFiguresAreTheSameAtEveryWidthAndTheDipShows() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100480")
        // Binance alone, so that every width's chart is labelled by the same venue's pair (a
        // loaded host's timeout would otherwise hand a cycle to coinbase's BTC/USD).
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        let now = Int64(Date().timeIntervalSince1970) / 60
        var text = "btcpriced-history 1\n"
        for minute in (now - 1380)..<(now - 1) {
            text += "\(minute) \(minute == now - 600 ? 95_000 : 100_000 + (minute % 10) * 96)\n"
        }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try text.write(toFile: daemon.stateDirectory + "/history.txt", atomically: true, encoding: .utf8)
        try await daemon.start()
        try await until("the live price") { try await daemon.ctl("price").stdout == "100480\n" }
        var summaries: [String] = []
        for width in ["8", "40", "200"] {
            let chart = try await daemon.ctl("chart", "--width", width).stdout
            let cells = chart.prefix(Int(width)!)
            #expect(cells.contains("▁"), "the dip at width \(width): \(chart)")
            summaries.append(String(chart.dropFirst(Int(width)!)))
        }
        #expect(Set(summaries).count == 1, "the same figures at every width: \(summaries)")
        #expect(summaries[0].contains("low 95,000.00  high 100,864.00") && summaries[0].contains("BTC/USDT") && summaries[0].contains("recorded since "), "\(summaries[0])")
        await exchange.shutdown()
    }

    @Test func pollingBinanceTakesItsDayFiguresFromTheMiniTickerAtNoExtraWeight() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("102000.00000000"))
        // Binance alone: at a shorter interval the chain would fill Binance's 1 s pace with other venues.
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("the day's figures") { try field("open_24h", of: try await daemon.ctl("status", "--json").stdout) == .string("100000") }
        let status = try await daemon.ctl("status", "--json").stdout
        #expect(try field("change_24h", of: status) == .string("2.00") && field("high_24h", of: status) == .string("102000"), "\(status)")
        // Whose figures these are, in one word, where chart draws the daemon's own minutes.
        #expect(try field("day_from", of: status) == .string("venue"), "\(status)")
        let human = try await daemon.ctl("status").stdout
        #expect(human.contains("24h range:  100,000.00 – 102,000.00  (venue)\n"), "\(human)")
        let chart = try await daemon.ctl("chart", "--width", "8").stdout
        #expect(chart.contains("  BTC/USDT 24h recorded since "), "\(chart)")
        // Counted from the answer that gave the figures: on a loaded host a first ask can time
        // out, and is then rightly asked again at the next cycle.
        func paths() -> [String] { exchange.requests(.binance).map { $0.uri.split(separator: "?").first.map(String.init) ?? "" } }
        let dayCalls = paths().filter { $0 == "/api/v3/ticker/24hr" }.count, calls = paths().count
        try await until("three more polls") { exchange.requests(.binance).count >= calls + 3 }
        #expect(paths().filter { $0 == "/api/v3/ticker/24hr" }.count == dayCalls, "once a minute, instead of a price call: \(paths())")
        #expect(paths().allSatisfy { $0 == "/api/v3/ticker/24hr" || $0 == "/api/v3/ticker/price" })
        await exchange.shutdown()
    }

    @Test func waitExitsZeroWhenThePriceCrossesAndThreeOnTimeout() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("100000"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("the first price") { try await daemon.ctl("price").status == 0 }

        let timedOut = try await daemon.ctl("wait", "--above", "100500", "--timeout", "300ms")
        #expect(timedOut.status == 3 && timedOut.stdout.isEmpty && timedOut.stderr.contains("timed out"))

        let socket = daemon.socket
        let waiting = Task { try await runCommand(Binaries.ctl, ["--socket", socket, "wait", "--above", "100500", "--timeout", "20s"], timeout: .seconds(25)) }
        exchange.set(.binance, .price("100600"))
        let crossed = try await waiting.value
        #expect(crossed.status == 0 && crossed.stdout == "100600\n", "\(crossed)")

        let below = try await daemon.ctl("wait", "--below", "100600")
        #expect(below.status == 0, "reaching the threshold counts")

        let lost = Task { try await runCommand(Binaries.ctl, ["--socket", socket, "wait", "--above", "999999"], timeout: .seconds(10)) }
        daemon.stop()
        let gone = try await lost.value
        // Lost while waiting ("closed the stream") or before connecting: exit 1 either way.
        #expect(gone.status == 1 && gone.stderr.hasPrefix("btcctl: "), "\(gone)")
        await exchange.shutdown()
    }
}
