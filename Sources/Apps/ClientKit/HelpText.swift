/// `btcctl --help`, laid out from the verb table: each synopsis at two spaces, its summary in
/// a column at 30, a synopsis too wide for the column on lines of its own.
enum HelpText {
    static let column = 30, width = 80

    static func lines(_ verb: CtlVerb) -> String {
        var lines = wrap(verb.synopsis)
        let indent = String(repeating: " ", count: column)
        if lines.count == 1, lines[0].count + 3 <= column, let first = verb.summary.first {
            lines[0] = lines[0] + String(repeating: " ", count: column - lines[0].count) + first
            lines += verb.summary.dropFirst().map { indent + $0 }
        } else {
            lines += verb.summary.map { indent + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The synopsis at two spaces, broken between options to fit the width, continued at six.
    private static func wrap(_ synopsis: String) -> [String] {
        var lines: [String] = [], line = "  "
        for word in groups(synopsis) {
            if line.count + word.count + 1 > width, line.count > 6 {
                lines.append(line)
                line = "     "
            }
            line += (line.hasSuffix(" ") ? "" : " ") + word
        }
        return lines + [line]
    }

    /// The synopsis's words, a bracketed option with its value kept whole: `[--unit UNIT]`.
    private static func groups(_ synopsis: String) -> [Substring] {
        var groups: [Substring] = [], depth = 0, start = synopsis.startIndex
        for index in synopsis.indices {
            switch synopsis[index] {
            case "[": depth += 1
            case "]": depth -= 1
            case " " where depth == 0:
                if start < index { groups.append(synopsis[start..<index]) }
                start = synopsis.index(after: index)
            default: break
            }
        }
        return groups + [synopsis[start...]]
    }

    static let afterCommands = """
    status, price, watch, prompt and the bars take --unit sats: sats per unit of the
    currency in place of the price (874 sats/$ at $114,459.80).
    waybar, i3blocks, polybar and prompt take --above P and --below P too: class above/below,
    a colour for i3blocks and polybar, and ↑/↓ after the prompt when the price reaches P.
    They also take --symbol S, shown in place of ₿ (U+20BF, missing from DejaVu Sans; Noto
    Sans and Symbola have it): e.g. --symbol BTC, or --symbol '' for none.

    Template placeholders for --format: {price} {price_rounded} {price_grouped}
    {price_short} {price_money} {currency} {currency_symbol} {symbol} {source} {age}
    {timestamp} {state} {stale}
    {change_1h} {change_24h} {change_7d} {arrow} {spark} {sats}

    Options:
      --socket PATH        daemon socket (env BTCCTL_SOCKET; default \(CtlCommandLine.defaultSocket),
                           or the per-user daemon's $XDG_RUNTIME_DIR/btcpriced/btcpriced.sock
                           when the system one does not exist)
      --currency CODE      the btcpriced@CODE instance's socket, e.g. eur (env BTCCTL_CURRENCY);
                           the socket is chosen by --socket, then --currency, then
                           BTCCTL_SOCKET, then BTCCTL_CURRENCY, then the defaults above
      --timeout DURATION   give up after this long, e.g. 500ms or 2s (default 1s; prompt: 250ms;
                           wait: no limit unless given)
      -V, --version        print the version
      -h, --help           print this help (also: btcctl help)

    Bars (waybar, i3blocks, polybar) exit 0 whenever they printed a block, stale or down included, as
    bars hide or break a module that exits non-zero; --exit-status gives them the codes below.
    Exit status: 0 ok and fresh, 1 daemon unreachable or protocol error,
    2 usage error, 3 stale or no data (output is still printed); for sources,
    0 when at least one source is ok and 3 otherwise.
    """
}
