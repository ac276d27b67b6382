#if canImport(Glibc)
import Glibc
#endif
import WireProtocol

/// `btcctl alert`: follows `watch` until stopped and acts once per crossing (AlertRule). It
/// reconnects when the daemon restarts, as a watching bar does, and keeps its armed state
/// across, so a restart fires nothing. Each change of state is one line on standard output.
extension CtlMain {
    static func alert(_ invocation: CtlInvocation, rule: AlertRule, exec: ChildCommand?, notify: Bool) -> Int32 {
        if notify, !onPath("notify-send") {
            Output.error("btcctl: --notify sends notifications with notify-send, which is not installed (Debian: apt install libnotify-bin)")
            return CtlExit.unreachable
        }
        var rule = rule
        Output.line("watching: " + rule.lines.map { "\($0.direction.rawValue) \($0.threshold) (re-arms \($0.direction == .above ? "below" : "above") \($0.rearmAt.text))" }
            .joined(separator: ", "))
        var paused = false, unreachable = false
        var children: [pid_t: String] = [:]
        while true {
            do throws(ClientError) {
                try stream(invocation) { _, status in
                    if unreachable { Output.line("connected to the daemon again"); unreachable = false }
                    reap(&children)
                    let stamp = status.timestamp.map(TerminalText.printable) ?? "-"
                    guard status.state == .fresh, let price = status.price else {
                        if !paused {
                            let age = status.ageMilliseconds.map { ", " + AgeText.compact(milliseconds: $0, spaced: true) + " old" } ?? ""
                            Output.line("\(stamp)  price \(status.state == .stale ? "stale" : "unknown")\(age): no alert fires until it is fresh")
                            paused = true
                        }
                        return
                    }
                    if paused { Output.line("\(stamp)  price fresh again"); paused = false }
                    let pair = "BTC/" + TerminalText.printable(status.currency), money = HumanFormat.money(price, currency: status.currency)
                    for event in rule.observe(price) {
                        switch event {
                        case .crossed(let line):
                            Output.line("\(stamp)  \(pair)  \(money)  crossed \(line.direction.rawValue) \(line.threshold)")
                            act(line, price: price, status: status, exec: exec, notify: notify, children: &children)
                        case .alreadyPast(let line):
                            Output.line("\(stamp)  \(pair)  \(money)  already \(line.direction.rawValue) \(line.threshold): "
                                + "armed once back \(line.direction == .above ? "below" : "above") \(line.rearmAt.text)")
                        case .rearmed(let line):
                            Output.line("\(stamp)  \(pair)  \(money)  re-armed for \(line.direction.rawValue) \(line.threshold)")
                        }
                    }
                }
            } catch {
                if !unreachable {
                    Output.line("daemon unreachable (\(error.message)): trying again every 2s")
                    unreachable = true
                }
            }
            reap(&children)
            Output.pause(milliseconds: 2000)
        }
    }

    /// Runs `--exec` and `--notify` for a crossing, without waiting for them.
    static func act(_ line: AlertRule.Line, price: String, status: StatusMessage, exec: ChildCommand?, notify: Bool,
                    children: inout [pid_t: String]) {
        var commands: [(ChildCommand, String)] = []
        if let exec { commands.append((exec, "--exec command")) }
        if notify {
            let pair = "BTC/" + status.currency, money = HumanFormat.money(price, currency: status.currency)
            let time = status.timestamp.flatMap(BarFormat.clockTime).map { " at \($0) UTC" } ?? ""
            // The body is Pango markup to notification servers: escaped (a currency code is the
            // daemon's text).
            commands.append((ChildCommand(words: ["notify-send", "--app-name=btcctl", "--category=btcctl.alert",
                                                 "BTC \(line.direction.rawValue) \(line.threshold)",
                                                 MarkupText.escaped("\(pair) \(money), crossed \(line.direction.rawValue) \(line.threshold)\(time)")]),
                             "notify-send"))
        }
        let environment = ["BTC_PRICE=\(price)", "BTC_CURRENCY=\(status.currency)", "BTC_THRESHOLD=\(line.threshold)",
                           "BTC_DIRECTION=\(line.direction.rawValue)"]
        for (command, name) in commands {
            switch command.spawn(adding: environment) {
            case .success(let pid): children[pid] = name
            case .failure(let error): Output.error("btcctl: \(error.message)")
            }
        }
    }

    /// Children that ended: a failure is said on standard error, once.
    static func reap(_ children: inout [pid_t: String]) {
        for (pid, failure) in ChildCommand.reapEnded() {
            guard let failure, let name = children[pid] else { children[pid] = nil; continue }
            let hint = name == "notify-send" ? ": is a notification server running on the session bus?" : ""
            Output.error("btcctl: \(name) \(failure)\(hint)")
            children[pid] = nil
        }
    }

    /// Whether `name` is an executable file in a PATH directory.
    static func onPath(_ name: String) -> Bool {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
    }
}
