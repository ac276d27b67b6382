#if canImport(Glibc)
import Glibc
#endif
import WireProtocol

/// What `btcctl` was asked to do.
public enum CtlAction: Equatable, Sendable {
    /// `unit`: `--unit sats` shows sats per unit of the currency in place of the price.
    case status(json: Bool, unit: PriceUnit = .fiat)
    case price(format: String?, unit: PriceUnit = .fiat)
    case watch(json: Bool, unit: PriceUnit = .fiat)
    /// Every configured source with its state, like `chronyc sources`.
    /// `wide`: every error in full, as when piped, rather than cut to the terminal's width.
    case sources(json: Bool, wide: Bool)
    case ping
    /// The daemon's Prometheus exposition, as node_exporter or Prometheus would read it.
    case metrics
    /// Waybar's custom module, `"return-type": "json"`; `watch` is its continuous mode.
    /// Exits 0 whenever it printed a block (Waybar hides a module that exits non-zero);
    /// `exitStatus` keeps the 1/3 codes for scripts.
    /// With `watch`, at most one block per `minimumInterval` milliseconds (a redraw costs the
    /// user CPU), always the newest; a change of state is printed at once.
    /// `symbol` marks the price, `₿` unless the user's font lacks it (`--symbol`).
    case waybar(watch: Bool, exitStatus: Bool = false, minimumInterval: Int = CtlCommandLine.barMinimumIntervalMilliseconds,
                thresholds: PriceThresholds = .none, symbol: String = BarFormat.bitcoinSign, unit: PriceUnit = .fiat)
    /// i3blocks' line protocol; `watch` prints one JSON block per line, for `format=json` with
    /// `interval=persist`. Exits 0 whenever it printed a block (i3blocks marks other codes as a
    /// broken block).
    case i3blocks(watch: Bool, exitStatus: Bool = false, minimumInterval: Int = CtlCommandLine.barMinimumIntervalMilliseconds,
                  thresholds: PriceThresholds = .none, symbol: String = BarFormat.bitcoinSign, unit: PriceUnit = .fiat)
    /// polybar's custom/script: the bar text in the state's colour (`%{F#…}`); `watch` for
    /// `tail = true`.
    case polybar(watch: Bool, exitStatus: Bool = false, minimumInterval: Int = CtlCommandLine.barMinimumIntervalMilliseconds,
                 thresholds: PriceThresholds = .none, symbol: String = BarFormat.bitcoinSign, unit: PriceUnit = .fiat)
    /// The shortest form, for PS1 and tmux; silent when the daemon is down unless `strict`.
    case prompt(strict: Bool, format: String?, thresholds: PriceThresholds = .none, symbol: String = BarFormat.bitcoinSign,
                unit: PriceUnit = .fiat)
    /// A sparkline of the range; `width` cells, or the terminal's width (40 off a terminal).
    case chart(range: ChartRange, width: Int?, json: Bool)
    /// Blocks until a fresh price crosses a threshold, like `chronyc waitsync`; `timeout` in ms.
    case wait(thresholds: PriceThresholds, timeoutMilliseconds: Int?)
    /// What `amount` of `unit` is worth in BTC, sats and the daemon's currency.
    /// Runs until stopped: once per crossing of a threshold by a fresh price, `exec` runs and a
    /// desktop notification goes out with `notify`; re-armed beyond the band (AlertRule).
    case alert(thresholds: PriceThresholds, band: AlertRule.Band, exec: ChildCommand?, notify: Bool)
    case convert(amount: String, unit: Conversion.Unit, json: Bool)
    /// One bar per UTC day from `since` (`2025-01-01`) on: a table, CSV (`date,open,high,low,close`),
    /// or with `faraday` the `unix_ts,price` rows faraday's custom fiat prices take.
    case daily(since: String?, csv: Bool, faraday: Bool, json: Bool)
    case version
    case help
}

public struct CtlInvocation: Equatable, Sendable {
    public var action: CtlAction
    public var socketPath: String
    /// The per-user daemon's socket, used while `socketPath` does not exist; nil when the
    /// socket was chosen (--socket, --currency or the environment).
    public var userSocketPath: String?
    public var timeoutMilliseconds: Int

    public init(action: CtlAction, socketPath: String, userSocketPath: String? = nil, timeoutMilliseconds: Int) {
        self.action = action
        self.socketPath = socketPath
        self.userSocketPath = userSocketPath
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The system daemon's socket while it exists, else the user's daemon's when that exists.
    /// Asked at every connection, so a watching bar finds whichever daemon starts later. With
    /// neither, the system path, which the error then names.
    public var reachableSocketPath: String {
        guard let userSocketPath, access(socketPath, F_OK) != 0, access(userSocketPath, F_OK) == 0 else { return socketPath }
        return userSocketPath
    }
}

public struct CtlUsageError: Error, Equatable, Sendable {
    public let message: String
}

/// `--above P` and `--below P`: exact decimal text, checked when parsed. Reaching a threshold
/// counts as crossing it.
public struct PriceThresholds: Equatable, Sendable {
    public var above: String?
    public var below: String?

    public init(above: String? = nil, below: String? = nil) {
        self.above = above
        self.below = below
    }

    public static let none = PriceThresholds()

    static func validated(_ text: String, flag: String) throws(CtlUsageError) -> String {
        guard !text.hasPrefix("-"), let value = FixedDecimal(text), value.units > 0 else {
            throw CtlUsageError(message: "\(flag) needs a positive decimal price such as 80000 or 79999.5, not \"\(text.prefix(40))\"")
        }
        return text
    }

    /// A `btcctl-alert@` instance name: `below-80000`, `above-120000`, or both joined by `_`
    /// (`below-80000_above-120000`); the unit passes it as `--thresholds %i`.
    static func merge(instance: String, into thresholds: inout PriceThresholds) throws(CtlUsageError) {
        for part in instance.split(separator: "_", omittingEmptySubsequences: false) {
            let words = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard words.count == 2, words[0] == "above" || words[0] == "below" else {
                throw CtlUsageError(message: "--thresholds: \"\(part.prefix(40))\" is not below-P or above-P; write e.g. below-80000_above-120000")
            }
            let flag = "--" + words[0]
            let price = try validated(words[1], flag: flag)
            guard (words[0] == "above" ? thresholds.above : thresholds.below) == nil else {
                throw CtlUsageError(message: "--thresholds: \(words[0]) is given twice; give it once")
            }
            if words[0] == "above" { thresholds.above = price } else { thresholds.below = price }
        }
    }

    /// `above`, `below`, or nil while the price is between the thresholds (or is not decimal text).
    func crossing(_ price: String?) -> String? {
        guard let price = price.flatMap({ FixedDecimal($0) }) else { return nil }
        if let above = above.flatMap({ FixedDecimal($0) }), price >= above { return "above" }
        if let below = below.flatMap({ FixedDecimal($0) }), price <= below { return "below" }
        return nil
    }
}

public enum CtlCommandLine {
    public static let defaultSocket = "/run/btcpriced/btcpriced.sock"

    /// Where the user unit's btcpriced.socket listens: %t/btcpriced/btcpriced.sock.
    public static func userSocketPath(runtimeDirectory: String) -> String {
        runtimeDirectory + "/btcpriced/btcpriced.sock"
    }

    /// The socket of the `btcpriced@CODE` instance: `/run/btcpriced/btcpriced-eur.sock`.
    static func instanceSocket(currency code: String) throws(CtlUsageError) -> String {
        guard let currency = Currency(code: code) else {
            let hint = Currency.suggestion(for: code).map { "; did you mean \($0.lowercased())?" } ?? "; use an ISO 4217 code such as eur, gbp or jpy"
            throw CtlUsageError(message: "--currency: \"\(code.prefix(20))\" is not an ISO 4217 currency code\(hint)")
        }
        return String(defaultSocket.dropLast(".sock".count)) + "-" + currency.code.lowercased() + ".sock"
    }
    public static let defaultTimeoutMilliseconds = 1000
    public static let promptTimeoutMilliseconds = 250
    public static let barMinimumIntervalMilliseconds = 1000

    static let commandList = "status, price, watch, sources, ping, metrics, waybar, i3blocks, polybar, prompt, chart, history, wait, convert, alert, version or help"
    static let commandNames = ["status", "price", "watch", "sources", "ping", "metrics", "waybar", "i3blocks", "polybar", "prompt", "chart", "history", "wait",
                               "convert", "alert", "version", "help"]

    public static let usage = """
    Usage: btcctl [--socket PATH | --currency CODE] [--timeout DURATION] COMMAND

    Queries btcpriced, the BTC/USD price daemon.

    Commands:
      status [--json]             price, source, age and freshness (--json: the daemon's JSON)
      price [--format T]          the exact price alone, or formatted by template T
      watch [--json]              print a line for every new quote and state change
      sources [--json] [--wide]   each configured exchange: state, last price, latency,
                                  calls against its budget; * marks the one(s) in use;
                                  errors cut to the terminal's width unless --wide or piped
      ping                        check that the daemon answers
      metrics                     the daemon's metrics in Prometheus text format
      waybar [--watch [--min-interval D]] [--exit-status]
                                  JSON for a Waybar custom module (--watch: continuous mode,
                                  at most one update per --min-interval, default 1s; 0 = all)
      i3blocks [--watch [--min-interval D]] [--exit-status]
                                  i3blocks lines (--watch: JSON blocks for interval=persist
                                  with format=json)
      polybar [--watch [--min-interval D]] [--exit-status]
                                  polybar's custom/script text, coloured by state
                                  (--watch: for tail = true)
      version                     the client's version, like --version
      help                        this help, like --help
      prompt [--strict] [--format T]
                                  short form for PS1/tmux, e.g. ₿114.5k; prints nothing and
                                  exits 0 when the daemon is down, unless --strict
      chart [--range R] [--width N] [--json]
                                  sparkline of 1h, 24h (default), 7d or 1y (daily bars) with
                                  first, last, low, high and change; N cells (default: the
                                  terminal's width, or 40)
      history --daily [--since DATE] [--csv [--faraday] | --json]
                                  one bar per UTC day, up to ten years: a table, CSV
                                  (date,open,high,low,close) or faraday's unix_ts,price
      wait --above P | --below P [--timeout D]
                                  block until a fresh price reaches P, print it and exit 0;
                                  exit 3 when D (up to 7d) runs out, 1 if the daemon is lost
      convert AMOUNT [UNIT] [--json]
                                  AMOUNT of btc (default), sats or the daemon's currency
                                  (e.g. usd) in all three: btcctl convert 0.05, convert 20 usd
      alert [--above P] [--below P] [--band B] [--exec CMD] [--notify]
                                  run until stopped; once per crossing of P by a fresh price,
                                  run CMD (no shell; BTC_PRICE, BTC_CURRENCY, BTC_THRESHOLD,
                                  BTC_DIRECTION set) and/or notify the desktop; re-arm once
                                  back beyond the band B (default 0.5%, or an amount);
                                  --thresholds below-P_above-P as btcctl-alert@.service gives

    status, price, watch, prompt and the bars take --unit sats: sats per unit of the
    currency in place of the price (874 sats/$ at $114,459.80).
    waybar, i3blocks, polybar and prompt take --above P and --below P too: class above/below,
    a colour for i3blocks and polybar, and ↑/↓ after the prompt when the price reaches P.
    They also take --symbol S, shown in place of ₿ (U+20BF, missing from DejaVu Sans; Noto
    Sans and Symbola have it): e.g. --symbol BTC, or --symbol '' for none.

    Template placeholders for --format: {price} {price_rounded} {price_grouped}
    {price_short} {price_money} {currency} {currency_symbol} {symbol} {source} {age}
    {timestamp} {state} {stale}
    {change_1h} {change_24h} {change_7d} {arrow} {spark} {sats}

    Options:
      --socket PATH        daemon socket (env BTCCTL_SOCKET; default \(defaultSocket),
                           or the per-user daemon's $XDG_RUNTIME_DIR/btcpriced/btcpriced.sock
                           when the system one does not exist)
      --currency CODE      the btcpriced@CODE instance's socket, e.g. eur (env BTCCTL_CURRENCY);
                           the socket is chosen by --socket, then --currency, then
                           BTCCTL_SOCKET, then BTCCTL_CURRENCY, then the defaults above
      --timeout DURATION   give up after this long, e.g. 500ms or 2s (default 1s; prompt: 250ms;
                           wait: no limit unless given)
      -V, --version        print the version
      -h, --help           print this help (also: btcctl help)

    Bars (waybar, i3blocks, polybar) exit 0 whenever they printed a block, stale or down included, as
    bars hide or break a module that exits non-zero; --exit-status gives them the codes below.
    Exit status: 0 ok and fresh, 1 daemon unreachable or protocol error,
    2 usage error, 3 stale or no data (output is still printed); for sources,
    0 when at least one source is ok and 3 otherwise.
    """

    /// Arguments without the program name. Throws rather than returning a Result: every generic
    /// type costs btcctl a runtime metadata lookup at start-up.
    /// `runtimeDirectory` is `$XDG_RUNTIME_DIR`, where the per-user daemon's socket lives.
    public static func parse(_ arguments: [String], socketFromEnvironment: String?,
                             currencyFromEnvironment: String? = nil, runtimeDirectory: String? = nil) throws(CtlUsageError) -> CtlInvocation {
        let socketFromEnvironment = socketFromEnvironment.flatMap { $0.isEmpty ? nil : $0 }
        var socket = socketFromEnvironment ?? defaultSocket
        var socketGiven = false
        var currency: String?
        var timeout: Int?
        var command: String?
        var json = false, watch = false, strict = false, exitStatus = false, wide = false
        var seen: [String] = []
        var format: String?
        var symbol: String?
        var minimumInterval: Int?
        var timeoutText: String?
        var thresholds = PriceThresholds.none
        var range = ChartRange.minutes(.day)
        var width: Int?
        var unit = PriceUnit.fiat
        // Words after the command: `convert`'s amount and unit.
        var operands: [String] = []
        var band: AlertRule.Band?
        var exec: ChildCommand?
        var notify = false
        var daily = false, csv = false, faraday = false
        var since: String?
        // The last option that took the next argument as its value, and that value: when no
        // command is left, it is likely the command (`btcctl --timeout status`).
        var valuedFlag = "", valuedText = ""
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            func value() -> String? {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { return nil }
                index += 1
                valuedFlag = argument
                valuedText = arguments[index - 1]
                return valuedText
            }
            if argument.hasPrefix("-") {
                guard !seen.contains(argument) else { throw CtlUsageError(message: "\(argument) is given twice; give it once") }
                seen.append(argument)
            }
            switch argument {
            case "--help", "-h": return CtlInvocation(action: .help, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds)
            case "--version", "-V": return CtlInvocation(action: .version, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds)
            case "--json": json = true
            case "--watch": watch = true
            case "--wide": wide = true
            case "--strict": strict = true
            case "--exit-status": exitStatus = true
            case "--format":
                guard let template = value() else { throw CtlUsageError(message: "--format needs a template, e.g. '₿{price_short}'") }
                try Template.validate(template)
                format = template
            case "--symbol":
                guard let text = value() else { throw CtlUsageError(message: "--symbol needs the text to show before the price, e.g. BTC or '' for none") }
                guard text.unicodeScalars.count <= 8, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw CtlUsageError(message: "--symbol takes at most 8 printable characters, such as BTC, XBT or '' for none")
                }
                symbol = text
            case "--min-interval":
                guard let text = value() else { throw CtlUsageError(message: "--min-interval needs a duration, e.g. 1s, 250ms or 0") }
                guard let ms = text == "0" ? 0 : parseMilliseconds(text) else {
                    throw CtlUsageError(message: "invalid --min-interval \"\(text.prefix(40))\": use a duration of at most 1h, such as 1s or 250ms, or 0 for every update")
                }
                minimumInterval = ms
            case "--above", "--below":
                guard let text = value() else { throw CtlUsageError(message: "\(argument) needs a price, e.g. 80000") }
                let price = try PriceThresholds.validated(text, flag: argument)
                if argument == "--above" { thresholds.above = price } else { thresholds.below = price }
            case "--range":
                guard let text = value(), let chosen = ChartRange(text) else {
                    throw CtlUsageError(message: "--range needs \(ChartRange.names)")
                }
                range = chosen
            case "--width":
                guard let text = value(), text.count <= 4, text.allSatisfy(\.isASCIIDigit), let cells = Int(text),
                      (1...HistoryQuery.maximumPoints).contains(cells) else {
                    throw CtlUsageError(message: "--width needs a number of cells from 1 to \(HistoryQuery.maximumPoints)")
                }
                width = cells
            case "--unit":
                guard let text = value(), let chosen = PriceUnit(rawValue: text.lowercased()) else {
                    throw CtlUsageError(message: "--unit needs sats (sats per unit of the currency) or fiat (the price, the default)")
                }
                unit = chosen
            case "--band":
                guard let text = value(), let chosen = AlertRule.Band(text) else {
                    throw CtlUsageError(message: "--band needs a percent of the threshold up to 50%, such as 0.5% or 1%, or an amount such as 250")
                }
                band = chosen
            case "--exec":
                guard let text = value() else { throw CtlUsageError(message: "--exec needs a command, e.g. --exec 'notify-send BTC'") }
                exec = try ChildCommand(parsing: text)
            case "--notify": notify = true
            case "--daily": daily = true
            case "--csv": csv = true
            case "--faraday": faraday = true
            case "--since":
                guard let text = value(), DailyQuery.isDate(text) else { throw CtlUsageError(message: "--since needs a date like 2025-01-01") }
                since = text
            case "--thresholds":
                guard let text = value() else { throw CtlUsageError(message: "--thresholds needs below-P, above-P or both joined by _, e.g. below-80000_above-120000") }
                try PriceThresholds.merge(instance: text, into: &thresholds)
            case "--socket":
                guard let path = value(), !path.isEmpty else { throw CtlUsageError(message: "--socket needs a path") }
                socket = path
                socketGiven = true
            case "--currency":
                guard let code = value(), !code.isEmpty else { throw CtlUsageError(message: "--currency needs an ISO 4217 code, e.g. eur") }
                currency = code
            case "--timeout":
                guard let text = value() else { throw CtlUsageError(message: "--timeout needs a duration, e.g. 500ms or 2s") }
                timeoutText = text
            default:
                // `convert -5` is a bad amount, said as such, not an unknown option.
                let negativeNumber = argument.dropFirst().first?.isASCIIDigit == true
                if argument.hasPrefix("-"), !(command == "convert" && negativeNumber) { throw CtlUsageError(message: "unknown option \(argument)") }
                if command == nil {
                    command = argument
                } else if command == "convert" {
                    operands.append(argument)
                } else {
                    throw CtlUsageError(message: "unexpected argument \"\(argument.prefix(40))\"")
                }
            }
        }
        // --socket, then --currency, then BTCCTL_SOCKET, then BTCCTL_CURRENCY.
        let currencyChosen = currency ?? (socketFromEnvironment == nil ? currencyFromEnvironment.flatMap { $0.isEmpty ? nil : $0 } : nil)
        if !socketGiven, let code = currencyChosen {
            socket = try instanceSocket(currency: code)
        }
        var userSocket: String?
        if !socketGiven, socketFromEnvironment == nil, currencyChosen == nil, let runtimeDirectory, runtimeDirectory.hasPrefix("/") {
            userSocket = userSocketPath(runtimeDirectory: runtimeDirectory)
        }
        // Plain arrays and ifs, not a Set or tuples: each generic instantiation costs btcctl a
        // runtime metadata lookup on every start.
        func only(_ allowed: [String]) throws(CtlUsageError) {
            func check(_ flag: String, _ given: Bool) throws(CtlUsageError) {
                if given && !allowed.contains(flag) {
                    throw CtlUsageError(message: "\(flag) does not apply to \(command ?? "this command")")
                }
            }
            try check("--json", json)
            try check("--watch", watch)
            try check("--strict", strict)
            try check("--format", format != nil)
            try check("--exit-status", exitStatus)
            try check("--wide", wide)
            try check("--min-interval", minimumInterval != nil)
            try check("--symbol", symbol != nil)
            try check("--unit", seen.contains("--unit"))
            try check("--band", band != nil)
            try check("--exec", exec != nil)
            try check("--notify", notify)
            try check("--thresholds", seen.contains("--thresholds"))
            try check("--daily", daily)
            try check("--since", since != nil)
            try check("--csv", csv)
            try check("--faraday", faraday)
            if format != nil && seen.contains("--unit") { throw CtlUsageError(message: "--unit does not apply with --format: put {sats} in the template") }
            if json && seen.contains("--unit") { throw CtlUsageError(message: "--unit does not apply with --json, which always carries sats_per_unit beside the price") }
            try check(thresholds.above != nil ? "--above" : "--below", thresholds != .none)
            try check(seen.contains("--range") ? "--range" : "--width", seen.contains("--range") || width != nil)
            if minimumInterval != nil && !watch { throw CtlUsageError(message: "--min-interval applies only with --watch") }
        }
        let barInterval = minimumInterval ?? barMinimumIntervalMilliseconds
        let barFlags = ["--watch", "--exit-status", "--min-interval", "--above", "--below", "--symbol", "--unit"]
        let mark = symbol ?? BarFormat.bitcoinSign
        let action: CtlAction
        switch command {
        case "status": try only(["--json", "--unit"]); action = .status(json: json, unit: unit)
        case "watch": try only(["--json", "--unit"]); action = .watch(json: json, unit: unit)
        case "sources": try only(["--json", "--wide"]); action = .sources(json: json, wide: wide)
        case "price": try only(["--format", "--unit"]); action = .price(format: format, unit: unit)
        case "ping": try only([]); action = .ping
        case "metrics": try only([]); action = .metrics
        case "waybar":
            try only(barFlags)
            action = .waybar(watch: watch, exitStatus: exitStatus, minimumInterval: barInterval, thresholds: thresholds, symbol: mark, unit: unit)
        case "i3blocks":
            try only(barFlags)
            action = .i3blocks(watch: watch, exitStatus: exitStatus, minimumInterval: barInterval, thresholds: thresholds, symbol: mark, unit: unit)
        case "polybar":
            try only(barFlags)
            action = .polybar(watch: watch, exitStatus: exitStatus, minimumInterval: barInterval, thresholds: thresholds, symbol: mark, unit: unit)
        case "version": try only([]); action = .version
        case "help": try only([]); return CtlInvocation(action: .help, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds)
        case "prompt":
            try only(["--strict", "--format", "--above", "--below", "--symbol", "--unit"])
            action = .prompt(strict: strict, format: format, thresholds: thresholds, symbol: mark, unit: unit)
        case "chart": try only(["--json", "--range", "--width"]); action = .chart(range: range, width: width, json: json)
        case "history":
            try only(["--daily", "--since", "--csv", "--faraday", "--json"])
            guard daily else { throw CtlUsageError(message: "history needs --daily (one bar per UTC day); the last hour, day or week is chart --range 1h|24h|7d --json") }
            if faraday && !csv { throw CtlUsageError(message: "--faraday applies only with --csv") }
            if json && csv { throw CtlUsageError(message: "--json and --csv are two forms of the same days; give one") }
            action = .daily(since: since, csv: csv, faraday: faraday, json: json)
        case "alert":
            try only(["--above", "--below", "--thresholds", "--band", "--exec", "--notify"])
            guard thresholds != .none else { throw CtlUsageError(message: "alert needs --above P, --below P or both") }
            action = .alert(thresholds: thresholds, band: band ?? .standard, exec: exec, notify: notify)
        case "convert":
            try only(["--json"])
            action = try convertAction(operands, json: json)
        case "wait":
            try only(["--above", "--below"])
            guard thresholds != .none else { throw CtlUsageError(message: "wait needs --above P or --below P") }
            var waitFor: Int?
            if let timeoutText {
                guard let ms = parseMilliseconds(timeoutText, limit: 7 * 86_400_000), ms > 0 else {
                    throw CtlUsageError(message: "invalid --timeout \"\(timeoutText.prefix(40))\": use a positive duration of at most 7d, such as 30s, 10m, 2h or 1d")
                }
                waitFor = ms
            }
            return CtlInvocation(action: .wait(thresholds: thresholds, timeoutMilliseconds: waitFor), socketPath: socket,
                                 userSocketPath: userSocket, timeoutMilliseconds: defaultTimeoutMilliseconds)
        case nil:
            if commandNames.contains(valuedText) {
                throw CtlUsageError(message: "\(valuedFlag) needs a value: \"\(valuedText)\" was taken as its value, which left no command; give the value first, e.g. btcctl \(valuedFlag) VALUE \(valuedText)")
            }
            throw CtlUsageError(message: "missing command: \(commandList)")
        case let other?: throw CtlUsageError(message: "unknown command \"\(other.prefix(40))\"; try \(commandList)")
        }
        if let timeoutText {
            guard let ms = parseMilliseconds(timeoutText), ms > 0 else {
                throw CtlUsageError(message: "invalid --timeout \"\(timeoutText.prefix(40))\": use a positive duration of at most 1h, such as 500ms, 1.5s, 2 (seconds) or 1m")
            }
            timeout = ms
        }
        // A prompt must never make a shell wait: it gets a shorter default.
        let defaultTimeout = command == "prompt" ? promptTimeoutMilliseconds : defaultTimeoutMilliseconds
        return CtlInvocation(action: action, socketPath: socket, userSocketPath: userSocket, timeoutMilliseconds: timeout ?? defaultTimeout)
    }

    /// `convert AMOUNT [UNIT]`: the amount is plain decimal text, the unit btc (the default),
    /// sats or a currency code; the daemon's currency is checked once its quote is known.
    static func convertAction(_ operands: [String], json: Bool) throws(CtlUsageError) -> CtlAction {
        guard let amount = operands.first else {
            throw CtlUsageError(message: "convert needs an amount, e.g. btcctl convert 0.05, btcctl convert 20 eur or btcctl convert 21000 sats")
        }
        guard operands.count <= 2 else { throw CtlUsageError(message: "unexpected argument \"\(operands[2].prefix(40))\" after convert's amount and unit") }
        guard ExactDecimal(amount) != nil else {
            throw CtlUsageError(message: "convert: \"\(amount.prefix(40))\" is not an amount: give a plain decimal such as 0.05, 21000 or 19.99 (no sign, grouping or exponent)")
        }
        var unit = Conversion.Unit.btc
        if operands.count == 2 {
            guard let given = Conversion.Unit(operands[1]) else {
                throw CtlUsageError(message: "convert: unknown unit \"\(operands[1].prefix(20))\": use btc, sats or the daemon's currency code (such as usd or eur)")
            }
            if case .currency(let code) = given, Currency(code: code) == nil, !Conversion.dollarStandIns.contains(code) {
                let hint = Currency.suggestion(for: code).map { "; did you mean \($0.lowercased())?" } ?? ""
                throw CtlUsageError(message: "convert: \"\(operands[1].prefix(20))\" is not a currency code\(hint); use btc, sats or the daemon's currency (such as usd or eur)")
            }
            unit = given
        }
        return .convert(amount: amount, unit: unit, json: json)
    }

    /// `500ms`, `1.5s`, `2`, `0.5`, `1m`, `2h`, `1d`: decimals as systemd's time spans take
    /// them, whole milliseconds, at most `limit` (an hour).
    static func parseMilliseconds(_ text: String, limit: Int = 3_600_000) -> Int? {
        var number = Substring(text), scale = 1000
        if text.hasSuffix("d") {
            number = number.dropLast(); scale = 86_400_000
        } else if text.hasSuffix("h") {
            number = number.dropLast(); scale = 3_600_000
        } else if text.hasSuffix("ms") {
            number = number.dropLast(2); scale = 1
        } else if text.hasSuffix("s") {
            number = number.dropLast(); scale = 1000
        } else if text.hasSuffix("m") {
            number = number.dropLast(); scale = 60_000
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 7 && $0.allSatisfy { $0 >= "0" && $0 <= "9" } }),
              let whole = Int(parts[0]) else { return nil }
        var milliseconds = whole * scale
        if parts.count == 2 {
            var fraction = 0, denominator = 1
            for digit in parts[1].utf8 {
                fraction = fraction * 10 + Int(digit - 48)
                denominator *= 10
            }
            guard (fraction * scale) % denominator == 0 else { return nil }
            milliseconds += fraction * scale / denominator
        }
        return milliseconds <= limit ? milliseconds : nil
    }
}
