#if canImport(Glibc)
import Glibc
#endif
import ClientKit
import Testing
import WireProtocol

@Suite("btcctl: arguments and human output")
struct ClientKitTests {
    func parse(_ arguments: [String], env: String? = nil) throws(CtlUsageError) -> CtlInvocation {
        try CtlCommandLine.parse(arguments, socketFromEnvironment: env)
    }

    @Test func defaults() throws {
        let invocation = try parse(["price"])
        #expect(invocation == CtlInvocation(action: .price(format: nil), socketPath: "/run/btcpriced/btcpriced.sock", timeoutMilliseconds: 1000))
    }

    @Test func socketPrecedenceIsFlagThenEnvironment() throws {
        #expect(try parse(["status"], env: "/tmp/env.sock").socketPath == "/tmp/env.sock")
        #expect(try parse(["--socket", "/tmp/flag.sock", "status"], env: "/tmp/env.sock").socketPath == "/tmp/flag.sock")
        #expect(try parse(["status", "--socket=/tmp/eq.sock"]).socketPath == "/tmp/eq.sock")
    }

    @Test func aCurrencySelectsItsInstanceSocket() throws {
        func socket(_ arguments: [String], socket: String? = nil, currency: String? = nil) throws(CtlUsageError) -> String {
            try CtlCommandLine.parse(arguments, socketFromEnvironment: socket, currencyFromEnvironment: currency).socketPath
        }
        #expect(try socket(["--currency", "eur", "price"]) == "/run/btcpriced/btcpriced-eur.sock")
        #expect(try socket(["--currency=GBP", "price"]) == "/run/btcpriced/btcpriced-gbp.sock")
        #expect(try socket(["price"], currency: "jpy") == "/run/btcpriced/btcpriced-jpy.sock")
        #expect(try socket(["price"], currency: "") == "/run/btcpriced/btcpriced.sock", "an empty BTCCTL_CURRENCY is unset")
        #expect(try socket(["--currency", "eur", "--socket", "/tmp/s.sock", "price"]) == "/tmp/s.sock", "--socket wins")
        #expect(try socket(["--currency", "eur", "price"], socket: "/tmp/env.sock") == "/run/btcpriced/btcpriced-eur.sock", "the flag beats BTCCTL_SOCKET")
        #expect(try socket(["price"], socket: "/tmp/env.sock", currency: "eur") == "/tmp/env.sock", "BTCCTL_SOCKET beats BTCCTL_CURRENCY")
        do {
            let path = try socket(["--currency", "eru", "price"])
            Issue.record("--currency eru gave \(path)")
        } catch {
            #expect(error.message == "--currency: \"eru\" is not an ISO 4217 currency code; did you mean eur?")
        }
    }

    /// A currency chosen is asked of its btcpriced@CODE instance while that one's socket
    /// exists, else named in each request to the daemon that serves several.
    @Test func aCurrencyIsAskedOfItsInstanceElseByNameOfTheSharedDaemon() throws {
        let eur = try CtlCommandLine.parse(["--currency", "eur", "price"], socketFromEnvironment: nil)
        #expect(eur.currency == "EUR" && eur.sharedSocketPath == "/run/btcpriced/btcpriced.sock", "\(eur)")
        let chosen = try CtlCommandLine.parse(["--currency", "eur", "--socket", "/tmp/s.sock", "price"], socketFromEnvironment: nil)
        #expect(chosen.target == ("/tmp/s.sock", "EUR"), "a chosen socket is asked for the currency by name: \(chosen.target)")
        #expect(try CtlCommandLine.parse(["price"], socketFromEnvironment: nil).target == ("/run/btcpriced/btcpriced.sock", nil))

        let directory = "/tmp/btcctl-instance-\(getpid())"
        mkdir(directory, 0o700)
        defer { unlink(directory + "/btcpriced-eur.sock"); rmdir(directory) }
        let invocation = CtlInvocation(action: .ping, socketPath: directory + "/btcpriced-eur.sock", timeoutMilliseconds: 1000,
                                       currency: "EUR", sharedSocketPath: directory + "/btcpriced.sock")
        #expect(invocation.target == (directory + "/btcpriced.sock", "EUR"), "no instance: the shared daemon, by name")
        close(open(directory + "/btcpriced-eur.sock", O_CREAT | O_WRONLY, 0o600))
        #expect(invocation.target == (directory + "/btcpriced-eur.sock", nil), "the instance serves its one currency")
        #expect(try CtlCommandLine.parse(["prices", "--json"], socketFromEnvironment: nil).action == .prices(json: true))
    }

    /// With no socket chosen, btcctl also knows the per-user daemon's socket, and uses it only
    /// while the system one does not exist.
    @Test func thePerUserDaemonIsTheFallbackWhenNoSocketIsChosen() throws {
        func user(_ arguments: [String], socket: String? = nil, currency: String? = nil) throws(CtlUsageError) -> String? {
            try CtlCommandLine.parse(arguments, socketFromEnvironment: socket, currencyFromEnvironment: currency,
                                     runtimeDirectory: "/run/user/1000").userSocketPath
        }
        #expect(try user(["price"]) == "/run/user/1000/btcpriced/btcpriced.sock")
        #expect(try user(["--socket", "/tmp/s.sock", "price"]) == nil, "a chosen socket has no fallback")
        #expect(try user(["price"], socket: "/tmp/env.sock") == nil)
        #expect(try user(["--currency", "eur", "price"]) == nil)
        #expect(try user(["price"], currency: "eur") == nil)
        #expect(try CtlCommandLine.parse(["price"], socketFromEnvironment: nil, runtimeDirectory: "relative").userSocketPath == nil)

        let directory = "/tmp/btcctl-fallback-\(getpid())"
        mkdir(directory, 0o700)
        defer { unlink(directory + "/user.sock"); unlink(directory + "/system.sock"); rmdir(directory) }
        let invocation = CtlInvocation(action: .ping, socketPath: directory + "/system.sock", userSocketPath: directory + "/user.sock",
                                       timeoutMilliseconds: 1000)
        #expect(invocation.reachableSocketPath == directory + "/system.sock", "neither exists: the error names the system socket")
        close(open(directory + "/user.sock", O_CREAT | O_WRONLY, 0o600))
        #expect(invocation.reachableSocketPath == directory + "/user.sock", "only the user's exists")
        close(open(directory + "/system.sock", O_CREAT | O_WRONLY, 0o600))
        #expect(invocation.reachableSocketPath == directory + "/system.sock", "the system daemon wins when both exist")
    }

    @Test func subcommandsAndFlags() throws {
        #expect(try parse(["status", "--json"]).action == .status(json: true))
        #expect(try parse(["watch", "--json"]).action == .watch(json: true))
        #expect(try parse(["watch"]).action == .watch(json: false))
        #expect(try parse(["ping"]).action == .ping)
        #expect(try parse(["--version"]).action == .version)
        #expect(try parse(["--help"]).action == .help)
        #expect(try parse(["--timeout", "250ms", "price"]).timeoutMilliseconds == 250)
        #expect(try parse(["--timeout=2", "price"]).timeoutMilliseconds == 2000)
        #expect(try parse(["history", "--daily"]).action == .daily(since: nil, csv: false, faraday: false, json: false))
        #expect(try parse(["history", "--daily", "--since", "2025-01-01", "--csv", "--faraday"]).action == .daily(since: "2025-01-01", csv: true, faraday: true, json: false))
        #expect(try parse(["history", "--daily", "--json"]).action == .daily(since: nil, csv: false, faraday: false, json: true))
        // --at in UTC, as people write it, or as Unix seconds.
        for (text, seconds) in [("2024-03-01T12:00Z", 1_709_294_400), ("2024-03-01T12:00:30Z", 1_709_294_430), ("2024-03-01t12:00", 1_709_294_400),
                                ("2024-03-01", 1_709_251_200), ("2024-02-29T23:59:59Z", 1_709_251_199), ("1709294400", 1_709_294_400)] as [(String, Int64)] {
            #expect(try parse(["history", "--at", text]).action == .priceAt(seconds: seconds, json: false), "\(text)")
        }
        #expect(try parse(["history", "--at", "2024-03-01", "--json"]).action == .priceAt(seconds: 1_709_251_200, json: true))
    }

    @Test("history's usage errors", arguments: [["history"], ["history", "--daily", "--faraday"], ["history", "--daily", "--csv", "--json"],
                                                ["history", "--daily", "--since", "2025-13-01"], ["history", "--daily", "--since"],
                                                ["chart", "--daily"], ["price", "--csv"], ["history", "--daily", "--range", "7d"],
                                                ["history", "--at", "2024-03-01T12:00+01:00"], ["history", "--at", "2023-02-29"],
                                                ["history", "--at", "2024-03-01T24:00Z"], ["history", "--at", "2024-03-01T12"], ["history", "--at"],
                                                ["history", "--at", "2024-03-01", "--daily"], ["history", "--at", "2024-03-01", "--csv"]])
    func historyUsageErrors(arguments: [String]) {
        #expect { try parse(arguments) } throws: { error in
            !(error as? CtlUsageError)!.message.isEmpty
        }
    }

    @Test func dailyBarsAsCSVForFaradayAndAsATable() {
        let reply = DailyReply(currency: "USD", days: [.init(date: "2026-11-26", open: "113020", high: "115200.5", low: "112010", close: "114459.8"),
                                                       .init(date: "2026-11-27", open: "114459.8", high: "116000", low: "114000", close: "115000")])
        #expect(DailyFormat.csv(reply) == "date,open,high,low,close\n2026-11-26,113020,115200.5,112010,114459.8\n2026-11-27,114459.8,116000,114000,115000\n")
        // 2026-11-27T00:00:00Z is 1795737600: the 26th's close is the price as that day ended.
        #expect(DailyFormat.faraday(reply) == "1795737600,114459.8\n1795824000,115000\n")
        #expect(DailyFormat.table(reply) == """
        date               open         high          low        close
        2026-11-26  $113,020.00  $115,200.50  $112,010.00  $114,459.80
        2026-11-27  $114,459.80  $116,000.00  $114,000.00  $115,000.00

        """, "\(DailyFormat.table(reply))")
    }

    @Test("usage errors", arguments: [[], ["frobnicate"], ["price", "--json"], ["status", "--watch"], ["prompt", "--format", "{nope}"],
                                      ["price", "--format", "{price"], ["waybar", "--json"], ["status", "extra"], ["--bogus", "status"],
                                      ["--timeout", "0", "price"], ["--timeout", "fast", "price"], ["--socket"], ["price", "--timeout"]])
    func usageErrors(arguments: [String]) {
        #expect { try parse(arguments) } throws: { error in
            !(error as? CtlUsageError)!.message.isEmpty
        }
    }

    @Test func groupsThousandsOnTheExactText() {
        #expect(HumanFormat.groupedPrice("114459.8") == "114,459.80")
        #expect(HumanFormat.groupedPrice("999999999999.99999999") == "999,999,999,999.99999999")
        #expect(HumanFormat.groupedPrice("0.00000001") == "0.00000001")
        #expect(HumanFormat.groupedPrice("100") == "100.00")
        #expect(HumanFormat.groupedPrice("1000") == "1,000.00")
    }

    @Test("prices in their currency's symbol and minor units", arguments: [
        ("97123.451", "EUR", "€97,123.45"), ("81002.1", "GBP", "£81,002.10"), ("15234567.5", "JPY", "¥15,234,568"),
        ("114459.8", "USD", "$114,459.80"), ("84211.2", "CHF", "CHF 84,211.20"), ("30000.1234", "KWD", "KWD 30,000.123"),
        ("114459.812", "USDT", "114,459.812"),
    ])
    func moneyInItsCurrency(price: String, currency: String, expected: String) {
        #expect(HumanFormat.money(price, currency: currency) == expected)
    }

    /// A fall-back from Binance's USDT to Coinbase's dollars keeps every column in place, and
    /// the dollar sign goes only on real dollars.
    @Test func watchColumnsKeepTheirPlaceAcrossSourcesAndOnlyDollarsGetTheSign() {
        let tether = StatusMessage(price: "114459.8", currency: "USDT", symbol: "BTCUSDT", source: "binance", timestamp: "2026-11-21T16:00:00.123Z",
                                   ageMilliseconds: 400, state: .fresh, lastError: nil, version: "0.1.0")
        let dollars = StatusMessage(price: "114470.01", currency: "USD", symbol: "BTC-USD", source: "coinbase", timestamp: "2026-11-21T16:00:01.456Z",
                                    ageMilliseconds: 400, state: .fresh, lastError: nil, version: "0.1.0")
        let lines = [HumanFormat.watchLine(tether), HumanFormat.watchLine(dollars)]
        #expect(lines == ["2026-11-21T16:00:00.123Z  BTC/USDT    114,459.80  binance        fresh",
                          "2026-11-21T16:00:01.456Z  BTC/USD    $114,470.01  coinbase       fresh"], "\(lines)")
        let columns = lines.map { line in ["BTC/", "114,4", "fresh"].map { line.range(of: $0).map { line.distance(from: line.startIndex, to: $0.lowerBound) } } }
        #expect(columns[0][0] == columns[1][0] && columns[0][2] == columns[1][2], "\(columns)")
        #expect(!HumanFormat.status(tether).contains("$") && HumanFormat.status(dollars).hasPrefix("BTC/USD  $114,470.01"))
    }

    @Test func barsPromptsAndTemplatesInAnotherCurrency() {
        let euros = StatusMessage(price: "97123.45", currency: "EUR", symbol: "BTCEUR", source: "binance", timestamp: "2026-11-21T16:00:00.123Z",
                                  ageMilliseconds: 400, state: .fresh, lastError: nil, version: "0.1.0")
        #expect(HumanFormat.status(euros).hasPrefix("BTC/EUR  €97,123.45\n"), "\(HumanFormat.status(euros))")
        #expect(BarFormat.prompt(euros) == "₿€97.1k")
        #expect(BarFormat.polybar(euros).contains("₿ €97,123"), "\(BarFormat.polybar(euros))")
        #expect(HumanFormat.watchLine(euros) == "2026-11-21T16:00:00.123Z  BTC/EUR     €97,123.45  binance        fresh")
        #expect(Template.render("{currency_symbol}{price_grouped} {currency} = {price_money}", euros) == "€97,123.45 EUR = €97,123.45")
        let yen = StatusMessage(price: "15234567", currency: "JPY", symbol: "XXBTZJPY", source: "kraken", timestamp: nil,
                                ageMilliseconds: nil, state: .fresh, lastError: nil, version: "0.1.0")
        #expect(HumanFormat.status(yen).hasPrefix("BTC/JPY  ¥15,234,567\n"), "\(HumanFormat.status(yen))")
        let dollars = StatusMessage(price: "114459.8", symbol: "BTCUSDT", source: "binance", timestamp: nil,
                                    ageMilliseconds: nil, state: .fresh, lastError: nil, version: "0.1.0")
        #expect(BarFormat.prompt(dollars) == "₿114.5k", "dollar bars stay as they were")
    }

    @Test func humanAges() {
        #expect(AgeText.compact(milliseconds: 412, spaced: true) == "0.4s")
        #expect(AgeText.compact(milliseconds: 42_000, spaced: true) == "42s")
        #expect(AgeText.compact(milliseconds: 192_000, spaced: true) == "3m 12s")
        #expect(AgeText.compact(milliseconds: 7_500_000, spaced: true) == "2h 05m")
        #expect(AgeText.compact(milliseconds: 273_600_000, spaced: true) == "3d 04h")
    }

    @Test func statusReportMarksStaleAndNoData() {
        let stale = StatusMessage(price: "68901.23", symbol: "BTCUSDT", source: "binance", timestamp: "2026-11-21T16:00:00.123Z",
                                  ageMilliseconds: 42_000, state: .stale, lastError: "binance: HTTP 451 (geo-restricted)", version: "0.1.0")
        let report = HumanFormat.status(stale)
        #expect(report.hasPrefix("BTC/USD  $68,901.23  STALE\n"), "\(report)")
        #expect(report.contains("binance (BTCUSDT)"))
        #expect(report.contains("42s"))
        #expect(report.contains("last error: binance: HTTP 451 (geo-restricted)"))
        let none = StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata, lastError: nil, version: "0.1.0")
        #expect(HumanFormat.status(none).contains("NO DATA"))
        #expect(!HumanFormat.status(.init(price: "1", symbol: "BTCUSD", source: "cryptocompare", timestamp: nil, ageMilliseconds: 1, state: .fresh, lastError: nil, version: "")).contains("STALE"))
    }
}

@Suite("btcctl sources table")
struct SourcesTableTests {
    @Test func onATerminalTheLastColumnIsCutToItsWidthAndPipedItIsWhole() {
        let hint = "API key refused: " + String(String(repeating: "set BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE ", count: 4).dropLast())
        let report = SourcesReport(mode: "fallback", entries: [
            .init(name: "cryptocompare", state: "failing", quoteAsset: "USD", lastError: hint),
        ])
        for columns in [80, 120, 250] {
            let lines = SourcesTable.render(report, columns: columns).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= columns }, "\(columns) columns: \(lines.map(\.count))")
        }
        #expect(SourcesTable.render(report, columns: 250).contains(hint), "the whole hint fits 250 columns")
        #expect(SourcesTable.render(report).contains(hint), "piped or --wide: whole")
        #expect(!SourcesTable.render(report).contains("CANDLES"), "no candle column before any candle request")
    }

    @Test func candleRequestsHaveAColumnOfTheirOwnBesideThePriceFetches() {
        let report = SourcesReport(mode: "fallback", entries: [
            .init(name: "binance", state: "ok", quoteAsset: "USDT", lastPrice: "114459.8", latencyMilliseconds: 41, selected: true, candleRequests: 15),
            .init(name: "cryptocompare", state: "failing", quoteAsset: "USD", lastError: "API key refused: set BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE",
                  callsLastDay: 12, dailyBudget: 7500, candleRequests: 0),
        ])
        let lines = SourcesTable.render(report, columns: 80).split(separator: "\n").map(String.init)
        #expect(lines.count == 4 && lines[1].hasSuffix("CANDLES LAST ERROR"), "\(lines)")
        #expect(lines[2].hasPrefix("* binance") && lines[2].contains(" - ") && lines[2].contains(" 15 "), "\(lines)")
        #expect(lines[3].contains(" 12/7500 ") && lines[3].contains(" - "), "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.map(\.count))")
    }

    @Test func alignedWithTheSelectedSourceMarkedAndHostileTextDefused() {
        let report = SourcesReport(mode: "fallback", entries: [
            .init(name: "binance", state: "cooling-down", quoteAsset: "USDT", lastError: "HTTP 451 (geo-restricted)\u{1B}[2J"),
            .init(name: "coinbase", state: "ok", quoteAsset: "USD", lastPrice: "85866.185", latencyMilliseconds: 88, selected: true),
            .init(name: "cryptocompare", state: "disabled", quoteAsset: "USD", callsLastDay: 0, dailyBudget: 7500, note: "no API key"),
        ])
        let lines = SourcesTable.render(report).split(separator: "\n").map(String.init)
        #expect(lines[0] == "mode: fallback")
        #expect(lines[1].hasPrefix("  SOURCE"))
        #expect(lines[3].hasPrefix("* coinbase"))
        #expect(lines[3].contains("85866.185") && lines[3].contains("88ms"))
        #expect(lines[4].contains("0/7500") && lines[4].hasSuffix("no API key"))
        #expect(!lines[2].contains("\u{1B}"))
        // Columns line up: the state column starts after the longest name on every row.
        let stateColumn = 2 + "cryptocompare".count + 1
        for (line, state) in zip(lines.dropFirst(), ["STATE", "cooling-down", "ok", "disabled"]) {
            #expect(String(line.dropFirst(stateColumn)).hasPrefix(state + " "), "\(line)")
        }
    }

    @Test func theStreamHasALineOfItsOwnAndSurvivesTheWire() throws {
        let live = SourcesReport(mode: "fallback", entries: [], stream: .init(name: "binance", state: "live", connections: 2, lastError: "closed by binance (1000)"))
        #expect(SourcesTable.render(live).split(separator: "\n")[1] == "stream: binance live")
        let refused = SourcesReport(mode: "fallback", entries: [], stream: .init(name: "binance", state: "refused", connections: 0, lastError: "upgrade declined"))
        #expect(SourcesTable.render(refused).split(separator: "\n")[1] == "stream: binance refused (upgrade declined)")
        #expect(try SourcesReport(json: refused.json) == refused)
        #expect(try SourcesReport(json: SourcesReport(mode: "fallback", entries: []).json).stream == nil)
        #expect(SourcesTable.render(SourcesReport(mode: "fallback", entries: [])).split(separator: "\n").count == 2, "no stream line without a stream")
    }

    @Test func aProxyRouteHasALineAndTravelsTheWire() throws {
        let tor = "via socks5h://127.0.0.1:9050 (host name resolved by the proxy)"
        let proxied = SourcesReport(mode: "fallback", entries: [
            .init(name: "binance", state: "ok", quoteAsset: "USDT", route: tor), .init(name: "kraken", state: "ok", quoteAsset: "USD", route: tor),
        ])
        #expect(SourcesTable.render(proxied).split(separator: "\n")[1] == "route: \(tor)")
        #expect(try SourcesReport(json: proxied.json) == proxied)
        let mixed = SourcesReport(mode: "fallback", entries: [
            .init(name: "binance", state: "ok", quoteAsset: "USDT", route: "via http://***@proxy:3128\u{1B}[2J"),
            .init(name: "mempool", state: "ok", quoteAsset: "USD", route: "direct"),
        ])
        let line = SourcesTable.render(mixed).split(separator: "\n")[1]
        #expect(line.hasPrefix("routes: binance via http://***@proxy:3128") && line.hasSuffix("; mempool direct") && !line.contains("\u{1B}"), "\(line)")
        let direct = SourcesReport(mode: "fallback", entries: [.init(name: "kraken", state: "ok", quoteAsset: "USD", route: "direct")])
        #expect(!SourcesTable.render(direct).contains("route"), "no route line when nothing is proxied")
    }
}

@Suite("btcctl: what a new user hit")
struct CtlNewUserTests {
    func parse(_ arguments: [String]) throws(CtlUsageError) -> CtlInvocation {
        try CtlCommandLine.parse(arguments, socketFromEnvironment: nil)
    }

    @Test("--timeout takes decimals like systemd time spans", arguments: [("1.5", 1500), ("1.5s", 1500), ("0.5s", 500), ("250ms", 250), ("2", 2000), ("1m", 60_000), ("0.25m", 15_000)])
    func decimalTimeouts(text: String, milliseconds: Int) throws {
        #expect(try parse(["--timeout", text, "price"]).timeoutMilliseconds == milliseconds)
    }

    @Test("bad timeouts say what is accepted", arguments: ["0", "1.5x", "-1s", "1.0001s", "2h", "61m", ".5", "1."])
    func badTimeouts(text: String) {
        #expect { try parse(["--timeout", text, "price"]) } throws: { error in
            (error as? CtlUsageError)?.message.contains("such as 500ms, 1.5s") == true
        }
    }

    @Test func versionIsACommandToo() throws {
        #expect(try parse(["version"]).action == .version)
    }

    @Test func repeatedFlagsAreRefused() {
        #expect { try parse(["--json", "status", "--json"]) } throws: { error in
            (error as? CtlUsageError)?.message == "--json is given twice; give it once"
        }
    }

    @Test func barsExitZeroUnlessAskedForStatusCodes() throws {
        #expect(try parse(["waybar"]).action == .waybar(watch: false, exitStatus: false))
        #expect(try parse(["i3blocks", "--exit-status"]).action == .i3blocks(watch: false, exitStatus: true))
        #expect(throws: CtlUsageError.self) { try parse(["status", "--exit-status"]) }
    }

    @Test func barsInWatchModeUpdateAtMostOnceASecondUnlessTold() throws {
        #expect(try parse(["waybar", "--watch"]).action == .waybar(watch: true, exitStatus: false, minimumInterval: 1000))
        #expect(try parse(["i3blocks", "--watch", "--min-interval", "250ms"]).action == .i3blocks(watch: true, exitStatus: false, minimumInterval: 250))
        #expect(try parse(["waybar", "--watch", "--min-interval=0"]).action == .waybar(watch: true, exitStatus: false, minimumInterval: 0))
        #expect { try parse(["waybar", "--min-interval", "2s"]) } throws: { error in
            (error as? CtlUsageError)?.message == "--min-interval applies only with --watch"
        }
        #expect { try parse(["waybar", "--watch", "--min-interval", "soon"]) } throws: { error in
            (error as? CtlUsageError)?.message.hasPrefix("invalid --min-interval \"soon\"") == true
        }
        #expect(throws: CtlUsageError.self) { try parse(["watch", "--min-interval", "1s"]) }
    }
}
