import Configuration
import Exchanges
import PriceCore

/// Resolves settings from flags > environment > config file > defaults, and validates them.
public enum SettingsLoader {
    public struct Sources: Sendable {
        /// Values given as command-line flags, keyed by setting.
        public var flags: [SettingKey: String]
        public var environment: [String: String]
        /// The config file's text and path, if it exists.
        public var file: (path: String, text: String)?
        /// The venues to read settings for: Venue.catalog, or a test's own.
        public var catalog: [Venue]

        public init(flags: [SettingKey: String] = [:], environment: [String: String] = [:], file: (path: String, text: String)? = nil,
                    catalog: [Venue] = Venue.catalog) {
            self.flags = flags
            self.environment = environment
            self.file = file
            self.catalog = catalog
        }
    }

    /// Each key of the table read in order, then the defaults that follow the route, then the
    /// checks between keys; the first error names where the value came from.
    public static func load(_ input: Sources) throws(ConfigError) -> DaemonSettings {
        let table = SettingTable.of(input.catalog)
        let reader = try SettingReader(input, table: table)
        var settings = DaemonSettings(catalog: input.catalog)
        for spec in table.specs { try spec.read(&settings, reader) }
        for spec in table.specs { spec.adjust(&settings, reader) }
        for spec in table.specs {
            if let problem = spec.check(settings, reader) { throw ConfigError(problem) }
        }
        return settings
    }

    /// `BTCPRICED_*` variables in the environment that are not settings: likely typos.
    public static func unknownEnvironmentKeys(_ environment: [String: String]) -> [String] {
        environment.keys.filter { $0.hasPrefix(SettingKey.prefix) && SettingKey(rawValue: $0) == nil }.sorted()
    }

    /// One warning per unknown `BTCPRICED_*` variable, with the same hint a config file's typo gets.
    public static func unknownEnvironmentWarnings(_ environment: [String: String]) -> [String] {
        unknownEnvironmentKeys(environment).map { key in
            let shown = key.count > 64 ? key.prefix(64) + "…" : Substring(key)
            let hint = SettingNames.standard.suggestion(for: key).map { " (did you mean \($0.rawValue)?)" } ?? "; see btcpriced.conf(5) for valid keys"
            return "ignoring unknown environment variable \(shown)\(hint)"
        }
    }
}

extension SettingReader {
    /// Flags, then the environment (empty counts as unset, as most tools treat it), then the
    /// config file, through swift-configuration's providers.
    init(_ input: SettingsLoader.Sources, table: SettingTable) throws(ConfigError) {
        let assignments = try input.file.map { file throws(ConfigError) in try ConfigFile.parse(file.text, path: file.path, names: table.names) } ?? []
        let environment = input.environment.filter { $0.key.hasPrefix(SettingKey.prefix) && !$0.value.isEmpty }
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: Dictionary(uniqueKeysWithValues: input.flags.map { ($0.key.rawValue, $0.value) })),
            EnvironmentVariablesProvider(environmentVariables: environment),
            EnvironmentVariablesProvider(environmentVariables: Dictionary(uniqueKeysWithValues: assignments.map { ($0.key, $0.value) })),
        ])
        self.init(context: SettingContext(catalog: input.catalog, environment: input.environment), table: table, flags: input.flags,
                  environment: environment, file: input.file.map { ($0.path, assignments) },
                  lookup: { reader.string(forKey: ConfigKey($0.configKey)) })
    }
}
