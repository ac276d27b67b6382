import WireProtocol

/// One btcctl option: its name, the value it takes (named as the help shows it), what to say
/// when that value is missing or not one it takes, and where the value goes.
struct CtlFlag: Sendable {
    let name: String
    /// The value's placeholder in the help (`T`, `DURATION`); nil for a switch.
    let value: String?
    /// Said when the value is missing, or when `take` refuses it.
    let needs: String
    /// Stores the value; false when the text is not one the option takes (`needs` says why).
    let take: @Sendable (inout CtlWords, String) throws(CtlUsageError) -> Bool

    init(_ name: String, _ value: String? = nil, needs: String = "",
         take: @escaping @Sendable (inout CtlWords, String) throws(CtlUsageError) -> Bool) {
        self.name = name
        self.value = value
        self.needs = needs
        self.take = take
    }

    /// A switch: `--json`.
    init(_ name: String, set: @escaping @Sendable (inout CtlWords) -> Void) {
        self.init(name) { words, _ in set(&words); return true }
    }

    /// The options no verb owns: where to ask and how long to wait.
    static let global = ["--socket", "--currency", "--timeout"]

    static func named(_ name: String) -> CtlFlag? {
        for flag in all where flag.name == name { return flag }
        return nil
    }

    /// Every option but `--help` and `--version`, which end the parse wherever they stand.
    static let all: [CtlFlag] = [
        CtlFlag("--json") { $0.json = true },
        CtlFlag("--watch") { $0.watch = true },
        CtlFlag("--wide") { $0.wide = true },
        CtlFlag("--strict") { $0.strict = true },
        CtlFlag("--exit-status") { $0.exitStatus = true },
        CtlFlag("--notify") { $0.notify = true },
        CtlFlag("--daily") { $0.daily = true },
        CtlFlag("--up") { $0.up = true },
        CtlFlag("--down") { $0.down = true },
        CtlFlag("--csv") { $0.csv = true },
        CtlFlag("--faraday") { $0.faraday = true },
        CtlFlag("--format", "TEMPLATE", needs: "--format needs a template, e.g. '₿{price_short}'") { words, text throws(CtlUsageError) in
            try Template.validate(text)
            words.format = text
            return true
        },
        CtlFlag("--symbol", "S", needs: "--symbol needs the text to show before the price, e.g. BTC or '' for none") { words, text throws(CtlUsageError) in
            guard text.unicodeScalars.count <= 8, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw CtlUsageError(message: "--symbol takes at most 8 printable characters, such as BTC, XBT or '' for none")
            }
            words.symbol = text
            return true
        },
        CtlFlag("--min-interval", "DURATION", needs: "--min-interval needs a duration, e.g. 1s, 250ms or 0") { words, text throws(CtlUsageError) in
            guard let ms = text == "0" ? 0 : CtlCommandLine.parseMilliseconds(text) else {
                throw CtlUsageError(message: "invalid --min-interval \"\(text.prefix(40))\": use a duration of at most 1h, such as 1s or 250ms, or 0 for every update")
            }
            words.minimumInterval = ms
            return true
        },
        CtlFlag("--above", "P", needs: "--above needs a price, e.g. 80000") { words, text throws(CtlUsageError) in
            words.thresholds.above = try PriceThresholds.validated(text, flag: "--above")
            return true
        },
        CtlFlag("--below", "P", needs: "--below needs a price, e.g. 80000") { words, text throws(CtlUsageError) in
            words.thresholds.below = try PriceThresholds.validated(text, flag: "--below")
            return true
        },
        CtlFlag("--range", "RANGE", needs: "--range needs \(ChartRange.names)") { words, text in
            guard let range = ChartRange(text) else { return false }
            words.range = range
            return true
        },
        CtlFlag("--width", "N", needs: "--width needs a number of cells from 1 to \(HistoryQuery.maximumPoints)") { words, text in
            guard text.count <= 4, text.allSatisfy(\.isASCIIDigit), let cells = Int(text), (1...HistoryQuery.maximumPoints).contains(cells) else { return false }
            words.width = cells
            return true
        },
        CtlFlag("--unit", "UNIT", needs: "--unit needs sats (sats per unit of the currency) or fiat (the price, the default)") { words, text in
            guard let unit = PriceUnit(rawValue: text.lowercased()) else { return false }
            words.unit = unit
            return true
        },
        CtlFlag("--band", "BAND", needs: "--band needs a percent of the threshold up to 50%, such as 0.5% or 1%, or an amount such as 250") { words, text in
            guard let band = AlertRule.Band(text) else { return false }
            words.band = band
            return true
        },
        CtlFlag("--move", "PCT", needs: "--move needs a percent up to 50%, such as 3% or 0.5%") { words, text in
            guard text.hasSuffix("%"), case .basisPoints(let basisPoints)? = AlertRule.Band(text), basisPoints > 0 else { return false }
            words.move = basisPoints
            return true
        },
        CtlFlag("--within", "DURATION", needs: "--within needs how quickly the move must come, from 1s to 7d, such as 15m, 1h or 1d") { words, text in
            guard let ms = CtlCommandLine.parseMilliseconds(text, limit: 7 * 86_400_000), ms >= 1000 else { return false }
            words.within = ms
            return true
        },
        CtlFlag("--exec", "COMMAND", needs: "--exec needs a command, e.g. --exec 'notify-send BTC'") { words, text throws(CtlUsageError) in
            words.exec = try ChildCommand(parsing: text)
            return true
        },
        CtlFlag("--since", "DATE", needs: "--since needs a date like 2025-01-01") { words, text in
            guard DailyQuery.isDate(text) else { return false }
            words.since = text
            return true
        },
        CtlFlag("--at", "TIME", needs: "--at needs a moment in UTC: \(MomentText.examples)") { words, text in
            guard let seconds = MomentText.seconds(text) else { return false }
            words.at = seconds
            return true
        },
        CtlFlag("--thresholds", "SPEC", needs: "--thresholds needs below-P, above-P or both joined by _, e.g. below-80000_above-120000") { words, text throws(CtlUsageError) in
            try PriceThresholds.merge(instance: text, into: &words.thresholds)
            return true
        },
        CtlFlag("--socket", "PATH", needs: "--socket needs a path") { words, text in
            guard !text.isEmpty else { return false }
            words.socket = text
            return true
        },
        CtlFlag("--currency", "CODE", needs: "--currency needs an ISO 4217 code, e.g. eur") { words, text in
            guard !text.isEmpty else { return false }
            words.currency = text
            return true
        },
        CtlFlag("--timeout", "DURATION", needs: "--timeout needs a duration, e.g. 500ms or 2s") { words, text in
            words.timeoutText = text
            return true
        },
    ]
}
