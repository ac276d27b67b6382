import Exchanges

/// A setting's text from the first place that gives it (flag, environment, config file, the
/// table's default), and where it came from, for messages that name the line to fix.
struct SettingReader {
    let context: SettingContext
    let table: SettingTable
    private let flags: [SettingKey: String]
    /// The `BTCPRICED_*` variables that are set and not empty (empty counts as unset).
    private let environment: [String: String]
    private let file: (path: String, assignments: [ConfigAssignment])?
    /// The text of the first place that gives a key: flag, environment, file.
    private let lookup: (SettingKey) -> String?

    /// `lookup` is the loader's (swift-configuration's providers, in order); the rest say where
    /// a value came from.
    init(context: SettingContext, table: SettingTable, flags: [SettingKey: String], environment: [String: String],
         file: (path: String, assignments: [ConfigAssignment])?, lookup: @escaping (SettingKey) -> String?) {
        self.context = context
        self.table = table
        self.flags = flags
        self.environment = environment
        self.file = file
        self.lookup = lookup
    }

    /// Whether anything gives the key, so the default stands aside.
    func given(_ key: SettingKey) -> Bool { lookup(key) != nil }

    /// The place to fix: the flag, the variable, the file and line, or the default.
    func origin(of key: SettingKey) -> String {
        if flags[key] != nil { return "--\(table.spec(key)?.flag ?? key.rawValue)" }
        if environment[key.rawValue] != nil { return "environment variable \(key.rawValue)" }
        if let file, let line = file.assignments.first(where: { $0.key == key.rawValue })?.line {
            return "\(file.path):\(line): \(key.rawValue)"
        }
        return "default \(key.rawValue)"
    }

    func value<T>(_ key: SettingKey, _ parse: (String) -> Result<T, InvalidValue>) throws(ConfigError) -> T {
        let text = lookup(key) ?? table.spec(key)?.defaultText(context) ?? ""
        switch parse(text) {
        case .success(let value): return value
        case .failure(let reason): throw ConfigError("\(origin(of: key)): \(reason.reason)")
        }
    }

    func duration(_ key: SettingKey, allowZero: Bool = false, atMost limit: Duration) throws(ConfigError) -> Duration {
        try value(key) { text in
            ValueParsers.duration(text).flatMap { duration in
                if duration == .zero && !allowZero { return .failure("must be greater than zero, got \(quoted(text))") }
                if duration > limit { return .failure("\(quoted(text)) is longer than the maximum of \(limit.humanReadable)") }
                return .success(duration)
            }
        }
    }
}
