/// Settings read only at start: the currency (the served quote, the history and the saved
/// state are in it), the stream, the socket, the state directory, the HTTP listener and the metrics textfile. A
/// reload that changes them keeps them as started and says so, every time, so the operator
/// knows a restart is due; one that could not stream the currency must not fail the rest of
/// the reload either.
public enum RestartOnlySettings {
    /// `next` with every restart-only setting as in `started`, and one warning per group of
    /// settings that `next` would change.
    public static func keep(_ started: DaemonSettings, in next: DaemonSettings) -> (settings: DaemonSettings, warnings: [String]) {
        var kept = next, warnings: [String] = []
        if next.currency != started.currency {
            warnings.append("BTCPRICED_CURRENCY changes (\(started.currency) to \(next.currency)) take effect at the next restart")
            kept.currency = started.currency
        }
        if next.stream != started.stream || next.streamURLs != started.streamURLs || next.publishInterval != started.publishInterval {
            let atRestart = next.stream.problem(currency: next.currency.code, catalog: next.catalog)
                .map { "; at the next restart it would stop the daemon: \($0)" } ?? ""
            warnings.append("BTCPRICED_STREAM, the stream URLs and BTCPRICED_PUBLISH_INTERVAL changes take effect at the next restart\(atRestart)")
            (kept.stream, kept.streamURLs, kept.publishInterval) = (started.stream, started.streamURLs, started.publishInterval)
        }
        if next.socketPath != started.socketPath || next.stateDirectory != started.stateDirectory {
            warnings.append("BTCPRICED_SOCKET and BTCPRICED_STATE_DIR changes take effect at the next restart")
            (kept.socketPath, kept.stateDirectory) = (started.socketPath, started.stateDirectory)
        }
        if next.http != started.http || next.metricsTextfile != started.metricsTextfile
            || next.metricsTextfileInterval != started.metricsTextfileInterval {
            warnings.append("BTCPRICED_HTTP_LISTEN (and BTCPRICED_METRICS_LISTEN), BTCPRICED_HTTP_HOSTS, BTCPRICED_HTTP_ORIGINS and BTCPRICED_METRICS_TEXTFILE changes take effect at the next restart")
            (kept.http, kept.metricsTextfile, kept.metricsTextfileInterval) = (started.http, started.metricsTextfile, started.metricsTextfileInterval)
        }
        return (kept, warnings)
    }

    /// Whether the venues asked, or their keys, changed: the plan's skips are worth logging again.
    public static func chainChanged(from current: DaemonSettings, to next: DaemonSettings) -> Bool {
        next.apiKeys != current.apiKeys || next.sources != current.sources
    }
}
