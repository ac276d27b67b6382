/// What `btcctl` was asked to do.
public enum CtlAction: Equatable, Sendable {
    case status(json: Bool)
    case price(format: String?)
    case watch(json: Bool)
    /// Every configured source with its state, like `chronyc sources`.
    case sources(json: Bool)
    case ping
    /// Waybar's custom module, `"return-type": "json"`; `watch` is its continuous mode.
    case waybar(watch: Bool)
    /// i3blocks' line protocol, also fine for polybar's custom/script; `watch` for persist/tail.
    case i3blocks(watch: Bool)
    /// The shortest form, for PS1 and tmux; silent when the daemon is down unless `strict`.
    case prompt(strict: Bool, format: String?)
    case version
    case help
}

public struct CtlInvocation: Equatable, Sendable {
    public var action: CtlAction
    public var socketPath: String
    public var timeoutMilliseconds: Int

    public init(action: CtlAction, socketPath: String, timeoutMilliseconds: Int) {
        self.action = action
        self.socketPath = socketPath
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

public struct CtlUsageError: Error, Equatable, Sendable {
    public let message: String
}

public enum CtlCommandLine {
    public static let defaultSocket = "/run/btcpriced/btcpriced.sock"
    public static let defaultTimeoutMilliseconds = 1000
    public static let promptTimeoutMilliseconds = 250

    public static let usage = """
    Usage: btcctl [--socket PATH] [--timeout DURATION] COMMAND

    Queries btcpriced, the BTC/USD price daemon.

    Commands:
      status [--json]             price, source, age and freshness (--json: the daemon's JSON)
      price [--format T]          the exact price alone, or formatted by template T
      watch [--json]              print a line for every new quote and state change
      sources [--json]            each configured exchange: state, last price, latency,
                                  calls against its budget; * marks the one(s) in use
      ping                        check that the daemon answers
      waybar [--watch]            JSON for a Waybar custom module (--watch: continuous mode)
      i3blocks [--watch]          i3blocks/polybar lines (--watch: interval=persist, tail = true)
      prompt [--strict] [--format T]
                                  short form for PS1/tmux, e.g. ₿114.5k; prints nothing and
                                  exits 0 when the daemon is down, unless --strict

    Template placeholders for --format: {price} {price_rounded} {price_grouped}
    {price_short} {currency} {symbol} {source} {age} {timestamp} {state} {stale}

    Options:
      --socket PATH        daemon socket (env BTCCTL_SOCKET; default \(defaultSocket))
      --timeout DURATION   give up after this long, e.g. 500ms or 2s (default 1s; prompt: 250ms)
      --version            print the version
      --help               print this help

    Exit status: 0 ok and fresh, 1 daemon unreachable or protocol error,
    2 usage error, 3 stale or no data (output is still printed); for sources,
    0 when at least one source is ok and 3 otherwise.
    """

    /// Arguments without the program name. Throws rather than returning a Result: every generic
    /// type costs btcctl a runtime metadata lookup at start-up.
    public static func parse(_ arguments: [String], socketFromEnvironment: String?) throws(CtlUsageError) -> CtlInvocation {
        var socket = socketFromEnvironment.flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocket
        var timeout: Int?
        var command: String?
        var json = false, watch = false, strict = false
        var format: String?
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
                return arguments[index - 1]
            }
            switch argument {
            case "--help", "-h": return CtlInvocation(action: .help, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds)
            case "--version", "-V": return CtlInvocation(action: .version, socketPath: socket, timeoutMilliseconds: defaultTimeoutMilliseconds)
            case "--json": json = true
            case "--watch": watch = true
            case "--strict": strict = true
            case "--format":
                guard let template = value() else { throw CtlUsageError(message: "--format needs a template, e.g. '₿{price_short}'") }
                try Template.validate(template)
                format = template
            case "--socket":
                guard let path = value(), !path.isEmpty else { throw CtlUsageError(message: "--socket needs a path") }
                socket = path
            case "--timeout":
                guard let text = value() else { throw CtlUsageError(message: "--timeout needs a duration, e.g. 500ms or 2s") }
                guard let ms = parseMilliseconds(text), ms > 0 else {
                    throw CtlUsageError(message: "invalid --timeout \"\(text)\"; use e.g. 500ms or 2s")
                }
                timeout = ms
            default:
                if argument.hasPrefix("-") { throw CtlUsageError(message: "unknown option \(argument)") }
                guard command == nil else { throw CtlUsageError(message: "unexpected argument \"\(argument)\"") }
                command = argument
            }
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
        }
        let action: CtlAction
        switch command {
        case "status": try only(["--json"]); action = .status(json: json)
        case "watch": try only(["--json"]); action = .watch(json: json)
        case "sources": try only(["--json"]); action = .sources(json: json)
        case "price": try only(["--format"]); action = .price(format: format)
        case "ping": try only([]); action = .ping
        case "waybar": try only(["--watch"]); action = .waybar(watch: watch)
        case "i3blocks": try only(["--watch"]); action = .i3blocks(watch: watch)
        case "prompt": try only(["--strict", "--format"]); action = .prompt(strict: strict, format: format)
        case nil: throw CtlUsageError(message: "missing command: status, price, watch, sources, ping, waybar, i3blocks or prompt")
        case let other?: throw CtlUsageError(message: "unknown command \"\(other)\"; try status, price, watch, sources, ping, waybar, i3blocks or prompt")
        }
        // A prompt must never make a shell wait: it gets a shorter default.
        let defaultTimeout = command == "prompt" ? promptTimeoutMilliseconds : defaultTimeoutMilliseconds
        return CtlInvocation(action: action, socketPath: socket, timeoutMilliseconds: timeout ?? defaultTimeout)
    }

    /// `500ms`, `2s`, `1m`, or plain seconds.
    static func parseMilliseconds(_ text: String) -> Int? {
        for (suffix, scale) in [("ms", 1), ("s", 1000), ("m", 60_000)] where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).flatMap { $0 <= 3_600_000 / scale ? $0 * scale : nil }
        }
        return Int(text).flatMap { $0 <= 3600 ? $0 * 1000 : nil }
    }
}
