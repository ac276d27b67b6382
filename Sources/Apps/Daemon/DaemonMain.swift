#if canImport(Glibc)
import Glibc
#endif
import DaemonKit
import DaemonConfig
import Logging
import Systemd
import WireProtocol

/// The daemon's composition root: parses the command line, loads settings, wires adapters
/// to the core and runs until SIGTERM/SIGINT.
public enum DaemonMain {
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let command: DaemonCommand
        do {
            command = try DaemonCommandLine.parse(arguments)
        } catch {
            printError("\(error)")
            return ExitStatus.usage
        }
        switch command {
        case .help:
            print(DaemonCommandLine.usage)
            return ExitStatus.ok
        case .version:
            print("btcpriced \(ProductVersion.current)")
            return ExitStatus.ok
        case .checkConfig(let options):
            let report = CheckConfig.run(options, environment: environment)
            for warning in report.warnings { printError(warning) }
            for line in report.lines { print(line) }
            if let failure = report.failure { printError(failure) }
            return report.status
        case .run(let options):
            let settings: DaemonSettings
            let plan: SourcePlan
            do {
                settings = try SettingsLoader.load(options, environment: environment)
                plan = try SourcePlan(settings)
            } catch {
                printError("\(error)")
                return ExitStatus.config
            }
            let logLevel = LogLevelSwitch(Logger.Level(settings.logLevel))
            func makeLogger(_ level: LogLevelSwitch) -> Logger { DaemonLogging.logger(identifier: "btcpriced", level: level, environment: environment) }
            let logger = makeLogger(logLevel)
            for warning in SettingsLoader.unknownEnvironmentWarnings(environment) { logger.warning("\(warning)") }
            return await DaemonRuntime(settings: settings, plan: plan, options: options, environment: environment, logger: logger, logLevel: logLevel,
                                       serviceLogger: makeLogger(LogLevelSwitch(.warning))).run()
        }
    }

    static func printError(_ message: String) {
        StandardError.write("btcpriced: \(message)\n")
    }
}
