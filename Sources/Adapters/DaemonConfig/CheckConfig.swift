import PosixFiles

/// `btcpriced --check-config`: what the daemon would run with, and whether it could, as the
/// user running the check (under systemd the unit's own user and sandbox apply, and
/// StateDirectory= and RuntimeDirectory= create the directories).
public enum CheckConfig {
    public struct Report: Sendable {
        /// For stderr, first: settings that look like typos.
        public var warnings: [String] = []
        /// For stdout.
        public var lines: [String] = []
        /// For stderr, last: why the daemon could not run.
        public var failure: String?
        public var status: Int32 = ExitStatus.ok
    }

    public static func run(_ options: DaemonOptions, environment: [String: String]) -> Report {
        var report = Report()
        let settings: DaemonSettings, plan: SourcePlan, companions: [SourcePlan]
        do {
            settings = try SettingsLoader.load(options, environment: environment)
            plan = try SourcePlan(settings)
            companions = try SourcePlan.companions(of: settings)
        } catch {
            report.failure = "\(error)"
            report.status = ExitStatus.config
            return report
        }
        report.warnings = SettingsLoader.unknownEnvironmentWarnings(environment).map { "warning: \($0)" }
        if let advice = plan.flappingAdvice { report.warnings.append("warning: " + advice) }
        report.warnings += plan.routeAdvice.map { "warning: " + $0 }
        let timeouts = settings.asksThroughProxy
            ? "timeout \(settings.timeoutThroughProxy.humanReadable) through the proxy once connected (connect \(settings.connectTimeoutThroughProxy.humanReadable))"
                + (plan.active.contains { settings.proxies.route(for: settings.restURL($0)).proxy == nil } ? ", \(settings.timeout.humanReadable) direct" : "")
            : "timeout \(settings.timeout.humanReadable)" + (settings.connectTimeout.map { " once connected (connect \($0.humanReadable))" } ?? "")
        report.lines.append("settings: interval \(settings.interval.humanReadable), \(timeouts), stale after \(settings.staleAfter.humanReadable), socket \(settings.socketPath), state \(settings.stateDirectory)")
        report.lines.append(plan.description)
        if !companions.isEmpty {
            report.lines.append("currencies: \(settings.servedCurrencies.map(\.code).joined(separator: ", ")) (the first is the primary: btcctl, STATUS= and the watchdog follow it)")
            report.lines += ([plan] + companions).map { "  \($0.currencyLine); kept in \(settings.stateDirectory(of: $0.settings.currency))" }
        }
        if let url = settings.http.dashboardURL, let address = settings.http.address {
            report.lines.append("http: \(url) (the dashboard; the API under \(url)api/v1/, metrics at \(url)metrics)")
            if !address.isLoopback {
                report.warnings.append("warning: \(settings.http.setting) \(address) is not a loopback address: anyone who can reach this host on that port can read the price, the sources and the metrics")
            }
        }
        if let broker = settings.mqtt.broker {
            let password = settings.mqtt.passwordFile.map { "the password from \($0)" }
                ?? (settings.mqtt.password != nil ? "the password from the systemd credential \(MQTTSettings.credential)" : "no password")
            let currency = settings.currency.code.lowercased()
            report.lines.append("mqtt: \(broker) (\(password)); state on \(settings.mqtt.topicRoot)/\(currency)/state, Home Assistant discovery under \(settings.mqtt.discoveryPrefix)/")
        }
        let socketDirectory = settings.socketPath.lastIndex(of: "/").map { String(settings.socketPath[..<$0]) } ?? "."
        let checks = [("state directory", DirectoryCheck.check(settings.stateDirectory)),
                      ("socket directory", DirectoryCheck.check(socketDirectory.isEmpty ? "/" : socketDirectory)),
                      ("socket", DirectoryCheck.socketPath(settings.socketPath))]
        report.lines += checks.map { "\($0.0): \($0.1.verdict)" }
        if let failed = checks.first(where: { !$0.1.usable }) {
            report.failure = "\(failed.0) unusable: \(failed.1.verdict)"
            report.status = ExitStatus.cannotCreate
            return report
        }
        report.lines.append("configuration OK")
        return report
    }
}
