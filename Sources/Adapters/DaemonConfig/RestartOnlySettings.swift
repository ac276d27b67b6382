/// Settings read only at start: the currency (the served quote, the history and the saved
/// state are in it), the stream, the socket, the state directory, the HTTP listener and the metrics textfile. A
/// reload that changes them keeps them as started and says so, every time, so the operator
/// knows a restart is due; one that could not stream the currency must not fail the rest of
/// the reload either.
public enum RestartOnlySettings {
    /// `next` with every restart-only setting as in `started`, and one warning per group of
    /// settings that `next` would change, naming the keys that changed.
    public static func keep(_ started: DaemonSettings, in next: DaemonSettings) -> (settings: DaemonSettings, warnings: [String]) {
        var kept = next, warnings: [String] = []
        let specs = SettingTable.of(next.catalog).specs
        for group in RestartGroup.allCases {
            let members = specs.filter { $0.reload == .atRestart(group) }
            let changed = members.filter { $0.differs(started, next) }
            guard !changed.isEmpty else { continue }
            warnings.append(group.warning(changed: changed.map(\.key), started: started, next: next))
            for spec in members { spec.keep(&kept, started) }
        }
        return (kept, warnings)
    }

    /// Whether the venues asked, or their keys, changed: the plan's skips are worth logging again.
    public static func chainChanged(from current: DaemonSettings, to next: DaemonSettings) -> Bool {
        next.apiKeys != current.apiKeys || next.sources != current.sources
    }
}
