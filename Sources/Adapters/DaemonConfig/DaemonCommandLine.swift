/// What `btcpriced` was asked to do.
public enum DaemonCommand: Sendable, Equatable {
    case run(DaemonOptions)
    case checkConfig(DaemonOptions)
    case version
    case help
}

public struct DaemonOptions: Sendable, Equatable {
    /// `--config`; nil means the default path, which may be missing.
    public var configPath: String?
    public var flags: [SettingKey: String]

    public init(configPath: String? = nil, flags: [SettingKey: String] = [:]) {
        self.configPath = configPath
        self.flags = flags
    }
}

public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

public enum DaemonCommandLine {
    /// The flags that set a setting, from the setting table.
    static let settingFlags: [String: SettingKey] = SettingTable.standard.flags

    public static let usage = """
    Usage: btcpriced [options]

    Keeps the BTC/USD price fresh and serves it on a Unix socket.

    Options:
      --config PATH          config file (default \(DaemonSettings.defaultConfigPath), or btcpriced.conf in
                             $CONFIGURATION_DIRECTORY under systemd; must exist if given)
      --state-dir DIR        where quote.json is kept (BTCPRICED_STATE_DIR)
      --socket PATH          Unix socket to serve on (BTCPRICED_SOCKET)
      --interval DURATION    fetch interval, e.g. 1s, 500ms (BTCPRICED_INTERVAL; default 1s,
                             15s via a proxy; the timeout follows it unless BTCPRICED_TIMEOUT is set)
      --log-level LEVEL      trace, debug, info, notice, warning, error, critical (BTCPRICED_LOG_LEVEL)
      --check-config         validate the configuration and exit: 0 valid, 78 invalid,
                             73 if the state or socket directory cannot be used
      --version              print the version and exit
      -h, --help             print this help and exit

    Exit status: 0 stopped cleanly, 64 bad usage, 73 the socket or state directory cannot be
    used, 78 invalid configuration, 1 any other failure.

    Settings come from flags, then the environment, then the config file, then defaults.
    See btcpriced.conf(5) or the shipped config file for every BTCPRICED_* key.
    """

    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonCommand {
        var options = DaemonOptions()
        var checkOnly = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" { return .help }
            guard argument.hasPrefix("--") else {
                throw UsageError(description: "unexpected argument \(quoted(argument)); see --help")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            func takeValue() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                // `--interval --check-config`: the next option is no value, however it parses.
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(description: "--\(name) needs a value; see --help")
                }
                index += 1
                return arguments[index - 1]
            }
            switch name {
            case "help": return .help
            case "version": return .version
            case "check-config": checkOnly = true
            case "config": options.configPath = try takeValue()
            default:
                guard let key = settingFlags[name] else {
                    throw UsageError(description: "unknown option \(quoted("--" + name)); see --help")
                }
                options.flags[key] = try takeValue()
            }
        }
        return checkOnly ? .checkConfig(options) : .run(options)
    }
}
