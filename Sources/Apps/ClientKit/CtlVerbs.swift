/// Every btcctl command, in the order `--help` lists them.
extension CtlCommandLine {
    public static let verbs: [CtlVerb] = [
        CtlVerb("status [--json | --unit UNIT]", ["price, source, age and freshness (--json: the daemon's JSON)"]) { words in
            .status(json: words.json, unit: words.unit)
        },
        CtlVerb("price [--format TEMPLATE | --unit UNIT]", ["the exact price alone, or formatted by TEMPLATE"]) { words in
            .price(format: words.format, unit: words.unit)
        },
        CtlVerb("watch [--json | --unit UNIT]", ["print a line for every new quote and state change"]) { words in
            .watch(json: words.json, unit: words.unit)
        },
        CtlVerb("sources [--json] [--wide]", ["each configured exchange: state, last price, latency,",
                                              "calls against its budget; * marks the one(s) in use;",
                                              "errors cut to the terminal's width unless --wide or piped"]) { words in
            .sources(json: words.json, wide: words.wide)
        },
        CtlVerb("prices [--json]", ["every currency the daemon serves (BTCPRICED_CURRENCIES):",
                                    "price, age, state and source, the primary first"]) { words in
            .prices(json: words.json)
        },
        CtlVerb("ping", ["check that the daemon answers"]) { _ in .ping },
        CtlVerb("metrics", ["the daemon's metrics in Prometheus text format"]) { _ in .metrics },
        CtlVerb("waybar \(barOptions)", ["JSON for a Waybar custom module (--watch: continuous mode,",
                                         "at most one update per --min-interval, default 1s; 0 = all)"]) { words in
            let bar = BarWords(words)
            return .waybar(watch: words.watch, exitStatus: words.exitStatus, minimumInterval: bar.interval, thresholds: words.thresholds,
                           symbol: bar.symbol, unit: words.unit)
        },
        CtlVerb("i3blocks \(barOptions)", ["i3blocks lines (--watch: JSON blocks for interval=persist", "with format=json)"]) { words in
            let bar = BarWords(words)
            return .i3blocks(watch: words.watch, exitStatus: words.exitStatus, minimumInterval: bar.interval, thresholds: words.thresholds,
                             symbol: bar.symbol, unit: words.unit)
        },
        CtlVerb("polybar \(barOptions)", ["polybar's custom/script text, coloured by state", "(--watch: for tail = true)"]) { words in
            let bar = BarWords(words)
            return .polybar(watch: words.watch, exitStatus: words.exitStatus, minimumInterval: bar.interval, thresholds: words.thresholds,
                            symbol: bar.symbol, unit: words.unit)
        },
        CtlVerb("prompt [--strict] [--format TEMPLATE] [--above P] [--below P] [--symbol S] [--unit UNIT]",
                ["short form for PS1/tmux, e.g. ₿114.5k; prints nothing and",
                 "exits 0 when the daemon is down, unless --strict"]) { words in
            .prompt(strict: words.strict, format: words.format, thresholds: words.thresholds, symbol: BarWords(words).symbol, unit: words.unit)
        },
        CtlVerb("chart [--range RANGE] [--width N] [--json]",
                ["sparkline of 1h, 24h (default), 7d or 1y (daily bars) with",
                 "first, last, low, high and change; N cells (default: the",
                 "terminal's width, or 40)"]) { words in
            .chart(range: words.range, width: words.width, json: words.json)
        },
        CtlVerb("history --daily [--since DATE] [--csv [--faraday] | --json] | --at TIME [--json]",
                ["one bar per UTC day, up to ten years: a table, CSV",
                 "(date,open,high,low,close) or faraday's unix_ts,price;",
                 "or the price at TIME (2024-03-01T12:00Z, a day or Unix",
                 "seconds): the nearest minute's close in the last week, else",
                 "its day's close"], action: historyAction),
        CtlVerb("wait --above P | --below P [--timeout DURATION]",
                ["block until a fresh price reaches P, print it and exit 0;",
                 "exit 3 when DURATION (up to 7d) runs out; 1 if the daemon is lost"], action: waitAction),
        CtlVerb("convert AMOUNT [UNIT] [--json]",
                ["AMOUNT of btc (default), sats or the daemon's currency",
                 "(e.g. usd) in all three: btcctl convert 0.05, convert 20 usd"]) { words throws(CtlUsageError) in
            try convertAction(words.operands, json: words.json)
        },
        CtlVerb("alert [--above P] [--below P] [--band BAND] [--exec COMMAND] [--notify] [--thresholds SPEC] [--move PCT --within DURATION [--up | --down]]",
                ["run until stopped; once per crossing of P by a fresh price,",
                 "run COMMAND (no shell; BTC_PRICE, BTC_CURRENCY, BTC_THRESHOLD,",
                 "BTC_DIRECTION set) and/or notify the desktop; re-arm once",
                 "back beyond BAND (default 0.5%, or an amount);",
                 "--thresholds below-P_above-P as btcctl-alert@.service gives;",
                 "or once per move of PCT within DURATION, either way or",
                 "--up or --down, re-armed once the move is back under PCT - BAND"], action: alertAction),
        CtlVerb("version", ["the client's version, like --version"]) { _ in .version },
        CtlVerb("help", ["this help, like --help"]) { _ in .help },
    ]

    /// Every option btcctl takes, `--help` and `--version` included, for the completions' tests.
    public static var optionNames: [String] { CtlFlag.all.map(\.name) + ["--help", "--version"] }

    static let barOptions = "[--watch [--min-interval DURATION]] [--exit-status] [--above P] [--below P] [--symbol S] [--unit UNIT]"

    private static func historyAction(_ words: CtlWords) throws(CtlUsageError) -> CtlAction {
        if let seconds = words.at {
            if words.daily || words.csv || words.faraday || words.since != nil {
                throw CtlUsageError(message: "--at asks for one moment; --daily, --since, --csv and --faraday are for the days")
            }
            return .priceAt(seconds: seconds, json: words.json)
        }
        guard words.daily else { throw CtlUsageError(message: "history needs --daily (one bar per UTC day) or --at TIME (the price then); the last hour, day or week is chart --range 1h|24h|7d --json") }
        if words.faraday && !words.csv { throw CtlUsageError(message: "--faraday applies only with --csv") }
        if words.json && words.csv { throw CtlUsageError(message: "--json and --csv are two forms of the same days; give one") }
        return .daily(since: words.since, csv: words.csv, faraday: words.faraday, json: words.json)
    }

    /// Thresholds, or a move within a window; not both.
    private static func alertAction(_ words: CtlWords) throws(CtlUsageError) -> CtlAction {
        guard words.move != nil || words.within != nil || words.up || words.down else {
            guard words.thresholds != .none else { throw CtlUsageError(message: "alert needs --above P, --below P or both, or --move PCT --within DURATION") }
            return .alert(thresholds: words.thresholds, band: words.band ?? .standard, exec: words.exec, notify: words.notify)
        }
        guard words.thresholds == .none else { throw CtlUsageError(message: "alert watches thresholds (--above, --below) or a move (--move), not both at once") }
        guard let move = words.move else { throw CtlUsageError(message: "--within, --up and --down go with --move PCT, e.g. --move 3% --within 1h") }
        guard let within = words.within else { throw CtlUsageError(message: "--move needs --within DURATION, how quickly the move must come, e.g. --within 1h") }
        guard !(words.up && words.down) else { throw CtlUsageError(message: "--up and --down together are the default (either way): give one, or neither") }
        var band: Int128?
        if let given = words.band {
            guard case .basisPoints(let basisPoints) = given else { throw CtlUsageError(message: "a move's --band is a percent, such as 0.5%, not an amount") }
            band = basisPoints
        }
        let directions: [MoveRule.Direction] = words.up ? [.up] : words.down ? [.down] : MoveRule.Direction.allCases
        return .moveAlert(rule: MoveRule(basisPoints: move, windowMilliseconds: Int64(within), directions: directions, bandBasisPoints: band),
                          exec: words.exec, notify: words.notify)
    }

    /// `wait`'s `--timeout` is how long to wait, up to a week, not how long the daemon may take.
    private static func waitAction(_ words: CtlWords) throws(CtlUsageError) -> CtlAction {
        guard words.thresholds != .none else { throw CtlUsageError(message: "wait needs --above P or --below P") }
        guard let text = words.timeoutText else { return .wait(thresholds: words.thresholds, timeoutMilliseconds: nil) }
        guard let ms = parseMilliseconds(text, limit: 7 * 86_400_000), ms > 0 else {
            throw CtlUsageError(message: "invalid --timeout \"\(text.prefix(40))\": use a positive duration of at most 7d, such as 30s, 10m, 2h or 1d")
        }
        return .wait(thresholds: words.thresholds, timeoutMilliseconds: ms)
    }
}

/// What the bars and the prompt share: the symbol, and how often a watching bar redraws.
struct BarWords {
    let interval: Int
    let symbol: String

    init(_ words: CtlWords) {
        interval = words.minimumInterval ?? CtlCommandLine.barMinimumIntervalMilliseconds
        symbol = words.symbol ?? BarFormat.bitcoinSign
    }
}
