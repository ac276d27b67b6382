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
    /// `prices`: every currency the daemon serves, a row each.
    case prices(json: Bool)
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
    /// Runs until stopped: once per move of a fresh price by the rule's share within its window.
    case moveAlert(rule: MoveRule, exec: ChildCommand?, notify: Bool)
    case convert(amount: String, unit: Conversion.Unit, json: Bool)
    /// One bar per UTC day from `since` (`2025-01-01`) on: a table, CSV (`date,open,high,low,close`),
    /// or with `faraday` the `unix_ts,price` rows faraday's custom fiat prices take.
    case daily(since: String?, csv: Bool, faraday: Bool, json: Bool)
    /// The price at a moment (Unix seconds), from the history the daemon keeps.
    case priceAt(seconds: Int64, json: Bool)
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
    /// The currency chosen (`--currency`, `BTCCTL_CURRENCY`), in upper case: asked of its
    /// `btcpriced@CODE` instance (`socketPath`) while that one's socket exists, else named in
    /// each request (`price EUR`) to the daemon that serves several (`sharedSocketPath`).
    public var currency: String?
    /// Where a daemon serving several currencies listens; nil when the socket was chosen
    /// (`--socket`), which is then asked for the currency by name.
    public var sharedSocketPath: String?

    public init(action: CtlAction, socketPath: String, userSocketPath: String? = nil, timeoutMilliseconds: Int,
                currency: String? = nil, sharedSocketPath: String? = nil) {
        self.action = action
        self.socketPath = socketPath
        self.userSocketPath = userSocketPath
        self.timeoutMilliseconds = timeoutMilliseconds
        self.currency = currency
        self.sharedSocketPath = sharedSocketPath
    }

    /// The socket to ask and the currency to name there: the instance of the currency chosen
    /// while its socket exists (it serves that one alone), else the shared daemon's, by name.
    public var target: (path: String, currency: String?) {
        guard let currency else { return (reachableSocketPath, nil) }
        guard let sharedSocketPath else { return (socketPath, currency) }
        return access(socketPath, F_OK) == 0 ? (socketPath, nil) : (sharedSocketPath, currency)
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
        String(defaultSocket.dropLast(".sock".count)) + "-" + (try chosenCurrency(code)).lowercased() + ".sock"
    }

    /// The ISO 4217 code `--currency` names, in upper case.
    static func chosenCurrency(_ code: String) throws(CtlUsageError) -> String {
        guard let currency = Currency(code: code) else {
            let hint = Currency.suggestion(for: code).map { "; did you mean \($0.lowercased())?" } ?? "; use an ISO 4217 code such as eur, gbp or jpy"
            throw CtlUsageError(message: "--currency: \"\(code.prefix(20))\" is not an ISO 4217 currency code\(hint)")
        }
        return currency.code
    }
    public static let defaultTimeoutMilliseconds = 1000
    public static let promptTimeoutMilliseconds = 250
    public static let barMinimumIntervalMilliseconds = 1000

    /// `status, price, … version or help`, for messages.
    static var commandList: String {
        let names = verbs.map { String($0.name) }
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    public static var usage: String {
        """
        Usage: btcctl [--socket PATH | --currency CODE] [--timeout DURATION] COMMAND

        Queries btcpriced, the BTC/USD price daemon.

        Commands:
        \(verbs.map(HelpText.lines).joined(separator: "\n"))

        \(HelpText.afterCommands)
        """
    }

    /// Arguments without the program name. Throws rather than returning a Result: every generic
    /// type costs btcctl a runtime metadata lookup at start-up.
    /// `runtimeDirectory` is `$XDG_RUNTIME_DIR`, where the per-user daemon's socket lives.
    public static func parse(_ arguments: [String], socketFromEnvironment: String?,
                             currencyFromEnvironment: String? = nil, runtimeDirectory: String? = nil) throws(CtlUsageError) -> CtlInvocation {
        let socketFromEnvironment = socketFromEnvironment.flatMap { $0.isEmpty ? nil : $0 }
        var words = CtlWords()
        if let early = try read(arguments, into: &words) {
            return CtlInvocation(action: early, socketPath: words.socket ?? socketFromEnvironment ?? defaultSocket, timeoutMilliseconds: defaultTimeoutMilliseconds)
        }
        let verb = try chosenVerb(words)
        try checkOptions(words, for: verb)
        let action = try verb.action(words)
        // --socket, then --currency, then BTCCTL_SOCKET, then BTCCTL_CURRENCY.
        let currencyChosen = words.currency ?? (socketFromEnvironment == nil ? currencyFromEnvironment.flatMap { $0.isEmpty ? nil : $0 } : nil)
        var socket = words.socket ?? socketFromEnvironment ?? defaultSocket
        var currency: String?, shared: String?
        if let code = currencyChosen {
            currency = try chosenCurrency(code)
            if words.socket == nil { (shared, socket) = (socket, try instanceSocket(currency: code)) }
        }
        if action == .help { return CtlInvocation(action: .help, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds) }
        var userSocket: String?
        if words.socket == nil, socketFromEnvironment == nil, currencyChosen == nil, let runtimeDirectory, runtimeDirectory.hasPrefix("/") {
            userSocket = userSocketPath(runtimeDirectory: runtimeDirectory)
        }
        return CtlInvocation(action: action, socketPath: socket, userSocketPath: userSocket, timeoutMilliseconds: try timeout(words, verb: verb),
                             currency: currency, sharedSocketPath: shared)
    }

    /// Reads every word into `words`; `--help` or `--version` ends it with that action.
    static func read(_ arguments: [String], into words: inout CtlWords) throws(CtlUsageError) -> CtlAction? {
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            if argument.hasPrefix("-") {
                guard !words.gave(argument) else { throw CtlUsageError(message: "\(argument) is given twice; give it once") }
                words.seen.append(argument)
            }
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--version" || argument == "-V" { return .version }
            guard let flag = CtlFlag.named(argument) else {
                try readOperand(argument, into: &words)
                continue
            }
            var text = ""
            if flag.value != nil {
                if let inlineValue {
                    text = inlineValue
                } else {
                    guard index < arguments.count else { throw CtlUsageError(message: flag.needs) }
                    text = arguments[index]
                    index += 1
                    (words.valuedFlag, words.valuedText) = (argument, text)
                }
            }
            guard try flag.take(&words, text) else { throw CtlUsageError(message: flag.needs) }
        }
        return nil
    }

    /// The command, or `convert`'s amount and unit.
    private static func readOperand(_ argument: String, into words: inout CtlWords) throws(CtlUsageError) {
        // `convert -5` is a bad amount, said as such, not an unknown option.
        let negativeNumber = argument.dropFirst().first?.isASCIIDigit == true
        if argument.hasPrefix("-"), !(words.command == "convert" && negativeNumber) { throw CtlUsageError(message: "unknown option \(argument)") }
        if words.command == nil {
            words.command = argument
        } else if words.command == "convert" {
            words.operands.append(argument)
        } else {
            throw CtlUsageError(message: "unexpected argument \"\(argument.prefix(40))\"")
        }
    }

    private static func chosenVerb(_ words: CtlWords) throws(CtlUsageError) -> CtlVerb {
        guard let command = words.command else {
            if CtlVerb.named(words.valuedText) != nil {
                throw CtlUsageError(message: "\(words.valuedFlag) needs a value: \"\(words.valuedText)\" was taken as its value, which left no command; give the value first, e.g. btcctl \(words.valuedFlag) VALUE \(words.valuedText)")
            }
            throw CtlUsageError(message: "missing command: \(commandList)")
        }
        guard let verb = CtlVerb.named(command) else { throw CtlUsageError(message: "unknown command \"\(command.prefix(40))\"; try \(commandList)") }
        return verb
    }

    /// Each option given is one the verb's synopsis names (or a global one), and the pairs
    /// that cannot meet do not.
    private static func checkOptions(_ words: CtlWords, for verb: CtlVerb) throws(CtlUsageError) {
        let allowed = verb.flags
        for flag in words.seen where CtlFlag.named(flag) != nil && !CtlFlag.global.contains(flag) && !allowed.contains(flag) {
            throw CtlUsageError(message: "\(flag) does not apply to \(verb.name)")
        }
        if words.format != nil && words.gave("--unit") { throw CtlUsageError(message: "--unit does not apply with --format: put {sats} in the template") }
        if words.json && words.gave("--unit") { throw CtlUsageError(message: "--unit does not apply with --json, which always carries sats_per_unit beside the price") }
        if words.minimumInterval != nil && !words.watch { throw CtlUsageError(message: "--min-interval applies only with --watch") }
    }

    /// How long the daemon may take to answer; `wait` reads its `--timeout` as how long to wait.
    private static func timeout(_ words: CtlWords, verb: CtlVerb) throws(CtlUsageError) -> Int {
        // A prompt must never make a shell wait: it gets a shorter default.
        let standard = verb.name == "prompt" ? promptTimeoutMilliseconds : defaultTimeoutMilliseconds
        guard let text = words.timeoutText, verb.name != "wait" else { return standard }
        guard let ms = parseMilliseconds(text), ms > 0 else {
            throw CtlUsageError(message: "invalid --timeout \"\(text.prefix(40))\": use a positive duration of at most 1h, such as 500ms, 1.5s, 2 (seconds) or 1m")
        }
        return ms
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
