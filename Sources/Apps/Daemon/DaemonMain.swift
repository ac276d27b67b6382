import DaemonConfig
import Logging
import Systemd

/// The daemon's composition root: reads the command line and the settings, then wires the
/// adapters to DaemonKit and runs until SIGTERM/SIGINT (DaemonRuntime).
public enum DaemonMain {
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        switch DaemonLaunch(arguments: arguments, environment: environment) {
        case .exit(let status, let output, let errors):
            for line in errors { StandardError.write("btcpriced: \(line)\n") }
            for line in output { print(line) }
            return status
        case .run(let options, let settings, let plan):
            let logLevel = LogLevelSwitch(Logger.Level(settings.logLevel))
            func makeLogger(_ level: LogLevelSwitch) -> Logger { DaemonLogging.logger(identifier: "btcpriced", level: level, environment: environment) }
            let logger = makeLogger(logLevel)
            for warning in SettingsLoader.unknownEnvironmentWarnings(environment) { logger.warning("\(warning)") }
            return await DaemonRuntime(settings: settings, plan: plan, options: options, environment: environment, logger: logger, logLevel: logLevel,
                                       serviceLogger: makeLogger(LogLevelSwitch(.warning))).run()
        }
    }
}
