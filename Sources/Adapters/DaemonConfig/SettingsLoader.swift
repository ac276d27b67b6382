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

    public static func load(_ input: Sources) throws(ConfigError) -> DaemonSettings {
        let names = input.catalog == Venue.catalog ? SettingNames.standard : SettingNames(catalog: input.catalog)
        let assignments = try input.file.map { file throws(ConfigError) in try ConfigFile.parse(file.text, path: file.path, names: names) } ?? []
        // Empty environment variables count as unset, as most tools treat them.
        let environment = input.environment.filter { $0.key.hasPrefix(SettingKey.prefix) && !$0.value.isEmpty }
        let reader = ConfigReader(providers: [
            EnvironmentVariablesProvider(environmentVariables: Dictionary(uniqueKeysWithValues: input.flags.map { ($0.key.rawValue, $0.value) })),
            EnvironmentVariablesProvider(environmentVariables: environment),
            EnvironmentVariablesProvider(environmentVariables: Dictionary(uniqueKeysWithValues: assignments.map { ($0.key, $0.value) })),
        ])

        func origin(of key: SettingKey) -> String {
            if input.flags[key] != nil { return "--\(flagName(for: key) ?? key.rawValue)" }
            if environment[key.rawValue] != nil { return "environment variable \(key.rawValue)" }
            if let file = input.file, let line = assignments.first(where: { $0.key == key.rawValue })?.line {
                return "\(file.path):\(line): \(key.rawValue)"
            }
            return "default \(key.rawValue)"
        }
        func value<T>(_ key: SettingKey, _ parse: (String) -> Result<T, InvalidValue>) throws(ConfigError) -> T {
            let text = reader.string(forKey: ConfigKey(key.configKey)) ?? DaemonSettings.defaultValue(for: key, environment: input.environment, names: names)
            switch parse(text) {
            case .success(let value): return value
            case .failure(let reason): throw ConfigError("\(origin(of: key)): \(reason.reason)")
            }
        }
        func positive(_ key: SettingKey, allowZero: Bool = false, atMost limit: Duration) throws(ConfigError) -> Duration {
            try value(key) { text in
                ValueParsers.duration(text).flatMap { duration in
                    if duration == .zero && !allowZero { return .failure("must be greater than zero, got \(quoted(text))") }
                    if duration > limit { return .failure("\(quoted(text)) is longer than the maximum of \(limit.humanReadable)") }
                    return .success(duration)
                }
            }
        }
        func nonEmpty(_ key: SettingKey) throws(ConfigError) -> String {
            try value(key) { $0.isEmpty ? .failure("must not be empty") : .success($0) }
        }

        // BTCPRICED_HTTP_LISTEN, or its older name; never both, as they would name one listener twice.
        func http() throws(ConfigError) -> HTTPSettings {
            let listen = try value(.httpListen, ValueParsers.listenAddress), alias = try value(.metricsListen, ValueParsers.listenAddress)
            if listen != nil && alias != nil {
                throw ConfigError("\(origin(of: .httpListen)) and \(origin(of: .metricsListen)) are both set; they name the same listener (BTCPRICED_METRICS_LISTEN is its older name): keep BTCPRICED_HTTP_LISTEN alone")
            }
            return HTTPSettings(address: listen ?? alias, setting: alias != nil ? .metricsListen : .httpListen,
                                hosts: try value(.httpHosts, ValueParsers.hostNames), origins: try value(.httpOrigins, ValueParsers.origins))
        }

        // One URL per venue that has the setting, keyed by venue name.
        func venueURLs(_ parse: (String) -> Result<String, InvalidValue>, key: (Venue) -> SettingKey?) throws(ConfigError) -> [SourceName: String] {
            var urls: [SourceName: String] = [:]
            for venue in input.catalog {
                guard let key = key(venue) else { continue }
                urls[venue.name] = try value(key, parse)
            }
            return urls
        }

        // Each venue's own settings, parsed by their kind; API keys apart, as they are secrets.
        func venueValues() throws(ConfigError) -> [String: String] {
            var values: [String: String] = [:]
            for setting in input.catalog.flatMap(\.settings) {
                switch setting.kind {
                case .symbol: values[setting.key] = try value(.venue(setting), ValueParsers.symbol)
                case .wholeNumber(let range): values[setting.key] = String(try value(.venue(setting), ValueParsers.wholeNumber(in: range)))
                case .apiKey: continue
                }
            }
            return values
        }
        func apiKeys() throws(ConfigError) -> [SourceName: APIKey] {
            var keys: [SourceName: APIKey] = [:]
            for venue in input.catalog {
                guard let setting = venue.apiKey else { continue }
                keys[venue.name] = try value(.venue(setting)) { text in
                    text.isEmpty ? .success(nil) : APIKeyResolver.validate(text).map { .some($0) }
                }
            }
            return keys
        }
        func apiKeyFiles() throws(ConfigError) -> [SourceName: String] {
            var files: [SourceName: String] = [:]
            for venue in input.catalog {
                guard let setting = venue.apiKey, let fileKey = SettingKey.file(of: setting) else { continue }
                files[venue.name] = try value(fileKey) { .success($0.isEmpty ? nil : $0) }
            }
            return files
        }

        func given(_ key: SettingKey) -> Bool { reader.string(forKey: ConfigKey(key.configKey)) != nil }
        let plainHosts = try value(.plainHTTPHosts, ValueParsers.plainHosts)
        let interval = try positive(.interval, atMost: .seconds(3600))
        // Unset, the timeout follows the interval; set, it must fit inside it (checked below).
        let timeout = given(.timeout) ? try positive(.timeout, atMost: .seconds(60)) : DaemonSettings.defaultTimeout(interval: interval)
        let connectTimeout: Duration? = given(.connectTimeout) ? try positive(.connectTimeout, atMost: .seconds(300)) : nil
        var settings = DaemonSettings(
            catalog: input.catalog,
            sources: try value(.sources) { ValueParsers.sources($0, catalog: input.catalog) },
            currency: try value(.currency, ValueParsers.currency),
            interval: interval,
            timeout: timeout,
            timeoutThroughProxy: timeout,
            connectTimeout: connectTimeout,
            connectTimeoutThroughProxy: connectTimeout ?? DaemonSettings.ThroughProxy.connectTimeout,
            staleAfter: try positive(.staleAfter, atMost: .seconds(86_400)),
            persistInterval: try positive(.persistInterval, allowZero: true, atMost: .seconds(86_400)),
            watchStall: try positive(.watchStall, atMost: .seconds(3600)),
            restURLs: try venueURLs({ ValueParsers.baseURL($0, plainHosts: plainHosts) }) { SettingKey.restURL($0) },
            stream: try value(.stream) { text in
                StreamChoice(text, catalog: input.catalog).map { .success($0) }
                    ?? .failure("unknown stream \(quoted(text)); use one of \(StreamChoice.choices(in: input.catalog).joined(separator: ", "))")
            },
            streamURLs: try venueURLs({ ValueParsers.streamURL($0, plainHosts: plainHosts) }) { SettingKey.streamURL($0) },
            publishInterval: try positive(.publishInterval, allowZero: true, atMost: .seconds(60)),
            venueValues: try venueValues(),
            apiKeys: try apiKeys(),
            apiKeyFiles: try apiKeyFiles(),
            mode: try value(.mode, ValueParsers.mode),
            maximumDeviation: try value(.maximumDeviation, ValueParsers.percentage),
            consensusMinimum: try value(.consensusMinimum, ValueParsers.wholeNumber(in: 1...input.catalog.count)),
            consensusIncludesUSDT: try value(.consensusUSDT, ValueParsers.yesNo),
            confirmMove: try value(.confirmMove, ValueParsers.percentageOrOff),
            backfill: try value(.backfill, ValueParsers.onOff),
            stateDirectory: try nonEmpty(.stateDirectory),
            limitsDirectory: try value(.limitsDirectory, ValueParsers.optionalDirectory),
            socketPath: try nonEmpty(.socket),
            logLevel: try value(.logLevel) { text in
                LogLevel(rawValue: text.lowercased()).map { .success($0) }
                    ?? .failure("unknown log level \(quoted(text)); use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            },
            metricsTextfile: try value(.metricsTextfile, ValueParsers.optionalAbsolutePath),
            metricsTextfileInterval: try positive(.metricsTextfileInterval, atMost: .seconds(3600)),
            userConnections: try value(.userConnections, ValueParsers.wholeNumber(in: 2...65_536)),
            userWatchers: try value(.userWatchers, ValueParsers.wholeNumber(in: 0...65_535))
        )
        settings.http = try http()
        let explicitProxy = try value(.proxy) { .success($0) }
        switch ProxyRules.load(explicit: explicitProxy, environment: input.environment) {
        case .success(let rules): settings.proxies = rules
        case .failure(let error) where explicitProxy.trimmingBlanks.isEmpty: throw ConfigError("environment variable \(error.reason)")
        case .failure(let error): throw ConfigError("\(origin(of: .proxy)): \(error.reason)")
        }
        // An onion service is reachable only through Tor: without a SOCKS route the daemon
        // would hand the name to the local resolver, which leaks it and cannot answer.
        for venue in input.catalog where settings.sources.contains(venue.name) {
            var urls = [(SettingKey.restURL(venue), settings.restURL(venue))]
            if let key = SettingKey.streamURL(venue), let url = settings.streamURL(venue) { urls.append((key, url)) }
            for (key, url) in urls where ValueParsers.isOnion(ProxyRules.host(of: url) ?? "") {
                guard settings.proxies.route(for: url).proxy?.isSOCKS == true else {
                    throw ConfigError("\(origin(of: key)): \(quoted(url)) is an .onion address, reachable only through Tor; set BTCPRICED_PROXY=socks5h://127.0.0.1:9050 (Tor's SOCKSPort)")
                }
            }
        }
        // Through a proxy, the defaults a direct link assumes give way to the route's.
        if settings.asksThroughProxy {
            if !given(.interval) { settings.interval = DaemonSettings.ThroughProxy.interval }
            if !given(.staleAfter) { settings.staleAfter = DaemonSettings.ThroughProxy.staleAfter }
            if !given(.timeout) {
                settings.timeout = DaemonSettings.defaultTimeout(interval: settings.interval)
                settings.timeoutThroughProxy = DaemonSettings.defaultTimeout(interval: settings.interval, throughProxy: true)
            }
        }
        // A user's own prompts must find room beside its watchers.
        guard settings.userWatchers < settings.userConnections else {
            throw ConfigError("\(origin(of: .userWatchers)) (\(settings.userWatchers)) must be lower than \(origin(of: .userConnections)) (\(settings.userConnections)), so a user's own one-shot requests find room beside its watch streams")
        }
        // Every attempt must end before the next cycle is due, or the interval is not kept.
        guard settings.timeout < settings.interval, settings.timeoutThroughProxy < settings.interval else {
            throw ConfigError("\(origin(of: .timeout)) (\(settings.timeout.humanReadable)) must be shorter than \(origin(of: .interval)) (\(settings.interval.humanReadable)): a slow source would overrun every cycle. Lower BTCPRICED_TIMEOUT or raise BTCPRICED_INTERVAL")
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

    static func flagName(for key: SettingKey) -> String? {
        DaemonCommandLine.settingFlags.first { $0.value == key }?.key
    }
}
