import DaemonConfig
import DaemonKit
import EventLoopScheduling
import Logging
import Systemd

/// SIGHUP's work: re-read the configuration and apply what can change live. Returns the
/// status READY=1 carries afterwards, whether the reload worked or not.
actor Reloader {
    private var config: ConfigReload
    private let daemon: PriceDaemon<DaemonClock, SourcePlan>
    private let logLevel: LogLevelSwitch
    private let logger: Logger

    init(_ config: ConfigReload, daemon: PriceDaemon<DaemonClock, SourcePlan>, logLevel: LogLevelSwitch, logger: Logger) {
        (self.config, self.daemon, self.logLevel, self.logger) = (config, daemon, logLevel, logger)
    }

    func reload() -> String {
        do {
            let outcome = try config.next()
            for warning in outcome.warnings { logger.warning("\(warning)") }
            logLevel.current = Logger.Level(outcome.settings.logLevel)
            if outcome.chainChanged { outcome.plan.logNotices(logger) }
            daemon.apply(outcome.plan)
            logger.notice("\(outcome.summary)", metadata: ["message_id": "\(MessageID.reloaded)"])
        } catch {
            logger.error("reload failed, keeping the previous configuration: \(error)", metadata: ["error": "\(error)"])
        }
        return daemon.board.statusSummary().text
    }
}
