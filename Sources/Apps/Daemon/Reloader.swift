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
    private let daemon: DaemonService<EventLoopClock>
    private let logLevel: LogLevelSwitch
    private let notifier: SystemdNotifier
    private let logger: Logger

    init(options: DaemonOptions, environment: [String: String], current: DaemonSettings,
         daemon: DaemonService<EventLoopClock>, logLevel: LogLevelSwitch,
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
        var next: DaemonSettings
        let plan: SourcePlan
        do {
            next = try DaemonMain.loadSettings(options, environment: environment)
            // The served quote, the history and the saved state are in the started currency.
            if next.currency != started.currency {
                logger.warning("BTCPRICED_CURRENCY changes (\(started.currency) to \(next.currency)) take effect at the next restart")
                next.currency = started.currency
            }
            // The stream runs as started: its keys wait for a restart, and one that could not
            // stream the currency must not fail the rest of the reload.
            if next.stream != started.stream || next.streamURLs != started.streamURLs || next.publishInterval != started.publishInterval {
                let atRestart = next.stream.problem(currency: next.currency.code, catalog: next.catalog).map { "; at the next restart it would stop the daemon: \($0)" } ?? ""
                logger.warning("BTCPRICED_STREAM, the stream URLs and BTCPRICED_PUBLISH_INTERVAL changes take effect at the next restart\(atRestart)")
                (next.stream, next.streamURLs, next.publishInterval) = (started.stream, started.streamURLs, started.publishInterval)
            }
            plan = try SourcePlan(next)
        } catch {
            logger.error("reload failed, keeping the previous configuration: \(error)", metadata: ["error": "\(error)"])
            return
        }
        if next.socketPath != started.socketPath || next.stateDirectory != started.stateDirectory {
            logger.warning("BTCPRICED_SOCKET and BTCPRICED_STATE_DIR changes take effect at the next restart")
        }
        if next.metricsListen != started.metricsListen || next.metricsTextfile != started.metricsTextfile
            || next.metricsTextfileInterval != started.metricsTextfileInterval {
            logger.warning("BTCPRICED_METRICS_LISTEN and BTCPRICED_METRICS_TEXTFILE changes take effect at the next restart")
        }
        logLevel.current = Logger.Level(next.logLevel)
        if next.cryptoCompareAPIKey != current.cryptoCompareAPIKey || next.sources != current.sources {
            SourcePlanLogging.logSkipped(plan, logger: logger)
        }
        daemon.apply(plan)
        logger.notice("reloaded configuration: \(next.mode.rawValue) over \(plan.active.map(\.name.rawValue).joined(separator: ",")), interval \(next.interval.humanReadable), timeout \(next.timeout.humanReadable), stale after \(next.staleAfter.humanReadable), log level \(next.logLevel.rawValue)",
                      metadata: ["message_id": "\(MessageID.reloaded)"])
        current = next
    }
}
