import Logging
import Synchronization

/// What a SIGHUP reads: the configuration anew, with the settings read only at start kept as
/// the daemon started (each asked-for change of one says that it waits for a restart, every
/// time). A configuration that does not load leaves the current one in force. SIGHUPs come one
/// at a time, but from a signal task, so the settings in force sit behind a lock.
public final class ConfigReload: Sendable {
    public let options: DaemonOptions
    public let environment: [String: String]
    private let started: DaemonSettings
    private let inForce: Mutex<DaemonSettings>
    /// The settings in force: those started with, then each reload's that loaded.
    public var current: DaemonSettings { inForce.withLock { $0 } }

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
        self.inForce = Mutex(started)
    }

    /// Loads the configuration again and makes it current; throws, leaving the current one,
    /// when it does not load or plan.
    public func next() throws -> Outcome {
        let kept = RestartOnlySettings.keep(started, in: try SettingsLoader.load(options, environment: environment))
        let plan = try SourcePlan(kept.settings)
        return inForce.withLock { current in
            defer { current = kept.settings }
            return Outcome(settings: kept.settings, plan: plan, warnings: kept.warnings,
                           chainChanged: RestartOnlySettings.chainChanged(from: current, to: kept.settings))
        }
    }

    /// SIGHUP's step: `next`, with its warnings logged, the new log level set (`setLogLevel`), then
    /// the plan's notices again when the chain changed. Nil, logged, when the configuration does
    /// not load: the current one stays.
    public func reload(logger: Logger, setLogLevel: (Logger.Level) -> Void) -> Outcome? {
        do {
            let outcome = try next()
            for warning in outcome.warnings { logger.warning("\(warning)") }
            setLogLevel(Logger.Level(outcome.settings.logLevel))
            if outcome.chainChanged { outcome.plan.logNotices(logger) }
            return outcome
        } catch {
            logger.error("reload failed, keeping the previous configuration: \(error)", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
