/// What a SIGHUP reads: the configuration anew, with the settings read only at start kept as
/// the daemon started (each asked-for change of one says that it waits for a restart, every
/// time). A configuration that does not load leaves the current one in force.
public struct ConfigReload: Sendable {
    public let options: DaemonOptions
    public let environment: [String: String]
    private let started: DaemonSettings
    /// The settings in force: those started with, then each reload's that loaded.
    public private(set) var current: DaemonSettings

    public struct Outcome: Sendable {
        public let settings: DaemonSettings
        public let plan: SourcePlan
        /// One per group of restart-only settings that the new configuration would change.
        public let warnings: [String]
        /// Whether the venues asked or their keys changed: the plan's notices are worth logging again.
        public let chainChanged: Bool

        /// What applies now, for the log.
        public var summary: String {
            "reloaded configuration: \(settings.mode.rawValue) over \(plan.active.map(\.name.rawValue).joined(separator: ",")), interval \(settings.interval.humanReadable), timeout \(settings.timeout.humanReadable), stale after \(settings.staleAfter.humanReadable), log level \(settings.logLevel.rawValue)"
        }
    }

    public init(options: DaemonOptions, environment: [String: String], started: DaemonSettings) {
        self.options = options
        self.environment = environment
        self.started = started
        self.current = started
    }

    /// Loads the configuration again and makes it current; throws, leaving the current one,
    /// when it does not load or plan.
    public mutating func next() throws -> Outcome {
        let kept = RestartOnlySettings.keep(started, in: try SettingsLoader.load(options, environment: environment))
        let plan = try SourcePlan(kept.settings)
        let outcome = Outcome(settings: kept.settings, plan: plan, warnings: kept.warnings,
                              chainChanged: RestartOnlySettings.chainChanged(from: current, to: kept.settings))
        current = kept.settings
        return outcome
    }
}
