import DaemonKit
import DaemonConfig
import EventLoopScheduling
import Logging
import Systemd

/// SIGHUP: RELOADING=1, re-read the config, apply what can change live, READY=1 — and READY=1
/// even when the new config is invalid, or systemctl reload would hang.
actor Reloader {
    private let options: DaemonOptions
    private let environment: [String: String]
    private var current: DaemonSettings
    /// What the daemon started with: keys read only at start are compared with this, so every
    /// reload that asks for a change of them says it waits for a restart.
    private let started: DaemonSettings
    private let daemon: PriceDaemon<EventLoopClock, SourcePlan>
    private let logLevel: LogLevelSwitch
    private let notifier: SystemdNotifier
    private let logger: Logger

    init(options: DaemonOptions, environment: [String: String], current: DaemonSettings,
         daemon: PriceDaemon<EventLoopClock, SourcePlan>, logLevel: LogLevelSwitch,
         notifier: SystemdNotifier, logger: Logger) {
        self.options = options
        self.environment = environment
        self.current = current
        self.started = current
        self.daemon = daemon
        self.logLevel = logLevel
        self.notifier = notifier
        self.logger = logger
    }

    func reload() {
        notifier.reloading(status: "reloading configuration")
        defer { notifier.ready(status: daemon.board.statusSummary().text) }
        let next: DaemonSettings
        let plan: SourcePlan
        do {
            let kept = RestartOnlySettings.keep(started, in: try SettingsLoader.load(options, environment: environment))
            for warning in kept.warnings { logger.warning("\(warning)") }
            next = kept.settings
            plan = try SourcePlan(next)
        } catch {
            logger.error("reload failed, keeping the previous configuration: \(error)", metadata: ["error": "\(error)"])
            return
        }
        logLevel.current = Logger.Level(next.logLevel)
        if RestartOnlySettings.chainChanged(from: current, to: next) { plan.logNotices(logger) }
        daemon.apply(plan)
        logger.notice("reloaded configuration: \(next.mode.rawValue) over \(plan.active.map(\.name.rawValue).joined(separator: ",")), interval \(next.interval.humanReadable), timeout \(next.timeout.humanReadable), stale after \(next.staleAfter.humanReadable), log level \(next.logLevel.rawValue)",
                      metadata: ["message_id": "\(MessageID.reloaded)"])
        current = next
    }
}
