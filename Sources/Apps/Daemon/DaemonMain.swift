#if canImport(Glibc)
import Glibc
#endif
import DaemonKit
import DaemonConfig
import FileStore
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
            do {
                let settings = try SettingsLoader.load(options, environment: environment)
                let plan = try SourcePlan(settings)
                for warning in SettingsLoader.unknownEnvironmentWarnings(environment) { printError("warning: \(warning)") }
                print("settings: interval \(settings.interval.humanReadable), timeout \(settings.timeout.humanReadable), stale after \(settings.staleAfter.humanReadable), socket \(settings.socketPath), state \(settings.stateDirectory)")
                print(plan.description)
                // Checked as the user running --check-config; under systemd the unit's own
                // user and sandbox apply (StateDirectory=, RuntimeDirectory= create them).
                let socketDirectory = settings.socketPath.lastIndex(of: "/").map { String(settings.socketPath[..<$0]) } ?? "."
                let checks = [("state directory", DirectoryCheck.check(settings.stateDirectory)),
                              ("socket directory", DirectoryCheck.check(socketDirectory.isEmpty ? "/" : socketDirectory))]
                for (what, check) in checks { print("\(what): \(check.verdict)") }
                if let failed = checks.first(where: { !$0.1.usable }) {
                    printError("\(failed.0) unusable: \(failed.1.verdict)")
                    return ExitStatus.cannotCreate
                }
                print("configuration OK")
                return ExitStatus.ok
            } catch {
                printError("\(error)")
                return ExitStatus.config
            }
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

extension Logger.Level {
    init(_ level: LogLevel) {
        self = Logger.Level(rawValue: level.rawValue) ?? .info
    }
}
