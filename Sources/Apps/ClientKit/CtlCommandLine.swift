/// What `btcctl` was asked to do.
public enum CtlAction: Equatable, Sendable {
    case status(json: Bool)
    case price
    case watch(json: Bool)
    case ping
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

    public static let usage = """
    Usage: btcctl [--socket PATH] [--timeout DURATION] COMMAND

    Queries btcpriced, the BTC/USD price daemon.

    Commands:
      status [--json]   price, source, age and freshness (--json: the daemon's JSON)
      price             the exact price alone
      watch [--json]    print a line for every new quote and state change
      ping              check that the daemon answers

    Options:
      --socket PATH        daemon socket (env BTCCTL_SOCKET; default \(defaultSocket))
      --timeout DURATION   give up after this long, e.g. 500ms or 2s (default 1s)
      --version            print the version
      --help               print this help

    Exit status: 0 ok and fresh, 1 daemon unreachable or protocol error,
    2 usage error, 3 stale or no data (output is still printed).
    """

    /// Arguments without the program name. Throws rather than returning a Result: every generic
    /// type costs btcctl a runtime metadata lookup at start-up.
    public static func parse(_ arguments: [String], socketFromEnvironment: String?) throws(CtlUsageError) -> CtlInvocation {
        var socket = socketFromEnvironment.flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocket
        var timeout = defaultTimeoutMilliseconds
        var command: String?
        var json = false
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
            case "--help", "-h": return CtlInvocation(action: .help, socketPath: socket, timeoutMilliseconds: timeout)
            case "--version", "-V": return CtlInvocation(action: .version, socketPath: socket, timeoutMilliseconds: timeout)
            case "--json": json = true
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
        let action: CtlAction
        switch command {
        case "status": action = .status(json: json)
        case "watch": action = .watch(json: json)
        case "price" where !json: action = .price
        case "ping" where !json: action = .ping
        case "price"?, "ping"?: throw CtlUsageError(message: "--json applies to status and watch only")
        case nil: throw CtlUsageError(message: "missing command: status, price, watch or ping")
        case let other?: throw CtlUsageError(message: "unknown command \"\(other)\"; try status, price, watch or ping")
        }
        return CtlInvocation(action: action, socketPath: socket, timeoutMilliseconds: timeout)
    }

    /// `500ms`, `2s`, `1m`, or plain seconds.
    static func parseMilliseconds(_ text: String) -> Int? {
        for (suffix, scale) in [("ms", 1), ("s", 1000), ("m", 60_000)] where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).flatMap { $0 <= 3_600_000 / scale ? $0 * scale : nil }
        }
        return Int(text).flatMap { $0 <= 3600 ? $0 * 1000 : nil }
    }
}
