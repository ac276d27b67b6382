#if canImport(Glibc)
import Glibc
#endif
import WireProtocol

/// `btcctl alert`: follows `watch` until stopped and acts once per crossing (AlertRule). It
/// reconnects when the daemon restarts, as a watching bar does, and keeps its armed state
/// across, so a restart fires nothing. Each change of state is one line on standard output.
extension CtlMain {
    static func alert(_ invocation: CtlInvocation, rule: AlertRule, exec: ChildCommand?, notify: Bool) -> Int32 {
        guard notifierFound(notify) else { return CtlExit.unreachable }
        var rule = rule
        Output.line("watching: " + rule.lines.map { "\($0.direction.rawValue) \($0.threshold) (re-arms \($0.direction == .above ? "below" : "above") \($0.rearmAt.text))" }
            .joined(separator: ", "))
        followFreshPrices(invocation) { fresh, children in
            for event in rule.observe(fresh.price) {
                switch event {
                case .crossed(let line):
                    Output.line("\(fresh.lead)  crossed \(line.direction.rawValue) \(line.threshold)")
                    let words = (title: "BTC \(line.direction.rawValue) \(line.threshold)", what: "crossed \(line.direction.rawValue) \(line.threshold)")
                    act(fresh, words: words, environment: ["BTC_THRESHOLD=\(line.threshold)", "BTC_DIRECTION=\(line.direction.rawValue)"],
                        exec: exec, notify: notify, children: &children)
                case .alreadyPast(let line):
                    Output.line("\(fresh.lead)  already \(line.direction.rawValue) \(line.threshold): "
                        + "armed once back \(line.direction == .above ? "below" : "above") \(line.rearmAt.text)")
                case .rearmed(let line):
                    Output.line("\(fresh.lead)  re-armed for \(line.direction.rawValue) \(line.threshold)")
                }
            }
        }
    }

    /// `alert --move`: once per move of the rule's share within its window, timed by the
    /// quotes' own times.
    static func moveAlert(_ invocation: CtlInvocation, rule: MoveRule, exec: ChildCommand?, notify: Bool) -> Int32 {
        guard notifierFound(notify) else { return CtlExit.unreachable }
        var rule = rule
        let share = FixedDecimal.wirePercent(basisPoints: rule.basisPoints) + "%", within = rule.windowText
        let ways = rule.directions.count == 2 ? "either way" : rule.directions[0].rawValue
        Output.line("watching: moves of \(share) \(ways) within \(within) (re-arms once under \(FixedDecimal.wirePercent(basisPoints: rule.rearmBelow))%)")
        followFreshPrices(invocation) { fresh, children in
            guard let time = fresh.status.timestamp.flatMap(MomentText.milliseconds) else { return }
            for event in rule.observe(fresh.price, at: time) {
                switch event {
                case .moved(let direction, let from, let basisPoints):
                    let moved = FixedDecimal.wirePercent(basisPoints: basisPoints) + "%"
                    let fromMoney = HumanFormat.money(from, currency: fresh.status.currency)
                    Output.line("\(fresh.lead)  \(direction.rawValue) \(moved) within \(within), from \(fromMoney)")
                    let words = (title: "BTC \(direction.rawValue) \(moved) in \(within)", what: "\(direction.rawValue) \(moved) within \(within) from \(fromMoney)")
                    act(fresh, words: words, environment: ["BTC_THRESHOLD=\(share)", "BTC_DIRECTION=\(direction.rawValue)", "BTC_MOVE=\(moved.dropLast())",
                                                           "BTC_FROM=\(from)", "BTC_WITHIN=\(within)"],
                        exec: exec, notify: notify, children: &children)
                case .rearmed(let direction):
                    Output.line("\(fresh.lead)  re-armed for moves \(direction.rawValue)")
                case .first:
                    Output.line("\(fresh.lead)  first price: moves count from here")
                }
            }
        }
    }

    /// A fresh price as the alerts see it: its status, its text, and the line's lead
    /// (`2026-11-21T16:00:00.123Z  BTC/USD  $114,459.80`).
    struct FreshPrice {
        let status: StatusMessage
        let price: String
        let lead: String
    }

    /// `--notify` needs notify-send: said once, before watching.
    static func notifierFound(_ notify: Bool) -> Bool {
        guard notify, !onPath("notify-send") else { return true }
        Output.error("btcctl: --notify sends notifications with notify-send, which is not installed (Debian: apt install libnotify-bin)")
        return false
    }

    /// Follows `watch` until stopped, handing each fresh price to `body`. It reconnects when the
    /// daemon restarts, as a watching bar does, and keeps the caller's state across, so a
    /// restart fires nothing. Each change of state is one line on standard output.
    static func followFreshPrices(_ invocation: CtlInvocation, _ body: (FreshPrice, inout [pid_t: String]) -> Void) -> Never {
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
                    let lead = "\(stamp)  BTC/\(TerminalText.printable(status.currency))  \(HumanFormat.money(price, currency: status.currency))"
                    body(FreshPrice(status: status, price: price, lead: lead), &children)
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

    /// Runs `--exec` and `--notify` for an alert, without waiting for them: the notification's
    /// title and text, and the variables the command gets beside BTC_PRICE and BTC_CURRENCY.
    static func act(_ fresh: FreshPrice, words: (title: String, what: String), environment: [String], exec: ChildCommand?, notify: Bool,
                    children: inout [pid_t: String]) {
        let status = fresh.status, price = fresh.price
        var commands: [(ChildCommand, String)] = []
        if let exec { commands.append((exec, "--exec command")) }
        if notify {
            let pair = "BTC/" + status.currency, money = HumanFormat.money(price, currency: status.currency)
            let time = status.timestamp.flatMap(BarFormat.clockTime).map { " at \($0) UTC" } ?? ""
            // The body is Pango markup to notification servers: escaped (a currency code is the
            // daemon's text).
            commands.append((ChildCommand(words: ["notify-send", "--app-name=btcctl", "--category=btcctl.alert", words.title,
                                                 MarkupText.escaped("\(pair) \(money), \(words.what)\(time)")]),
                             "notify-send"))
        }
        for (command, name) in commands {
            switch command.spawn(adding: ["BTC_PRICE=\(price)", "BTC_CURRENCY=\(status.currency)"] + environment) {
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
