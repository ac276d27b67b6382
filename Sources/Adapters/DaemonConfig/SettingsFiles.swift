extension SettingsLoader {
    /// The settings a daemon started with `options` runs on: its flags, the environment, the
    /// config file (`--config`, else the one systemd's ConfigurationDirectory= or /etc names)
    /// and the defaults, with each keyed venue's API key read from its file or credential.
    public static func load(_ options: DaemonOptions, environment: [String: String]) throws(ConfigError) -> DaemonSettings {
        let path = options.configPath ?? DaemonSettings.configPath(environment: environment)
        let text: String?
        do {
            text = try ConfigTextFile.read(path)
        } catch {
            throw ConfigError("config file: \(error)")
        }
        if text == nil, options.configPath != nil {
            throw ConfigError("config file \(path) does not exist (named by --config)")
        }
        let settings = try load(.init(flags: options.flags, environment: environment, file: text.map { (path, $0) }))
        let keyed = try APIKeyResolver.resolve(settings, environment: environment) { try ConfigTextFile.read($0) }
        return try MQTTPasswordResolver.resolve(keyed, environment: environment) { try ConfigTextFile.read($0) }
    }
}
