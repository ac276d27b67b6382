import WireProtocol

/// What btcpriced's command line asks, answered up to the point where the daemon runs: a usage
/// error, `--help`, `--version` and `--check-config` end with their lines for standard output
/// and standard error and their exit status; a run brings its options, settings and plan, or
/// ends with the configuration's error.
public enum DaemonLaunch: Sendable {
    /// The primary currency's plan, then the plan of each currency served beside it.
    case run(DaemonOptions, DaemonSettings, SourcePlan, companions: [SourcePlan])
    /// `errors` are printed after `btcpriced: ` on standard error.
    case exit(Int32, output: [String], errors: [String])

    public init(arguments: [String], environment: [String: String]) {
        let command: DaemonCommand
        do { command = try DaemonCommandLine.parse(arguments) } catch {
            self = .exit(ExitStatus.usage, output: [], errors: ["\(error)"])
            return
        }
        switch command {
        case .help:
            self = .exit(ExitStatus.ok, output: [DaemonCommandLine.usage], errors: [])
        case .version:
            self = .exit(ExitStatus.ok, output: ["btcpriced \(ProductVersion.current)"], errors: [])
        case .checkConfig(let options):
            let report = CheckConfig.run(options, environment: environment)
            self = .exit(report.status, output: report.lines, errors: report.warnings + [report.failure].compactMap { $0 })
        case .run(let options):
            do {
                let settings = try SettingsLoader.load(options, environment: environment)
                self = .run(options, settings, try SourcePlan(settings), companions: try SourcePlan.companions(of: settings))
            } catch {
                self = .exit(ExitStatus.config, output: [], errors: ["\(error)"])
            }
        }
    }
}
