/// One btcctl command: its synopsis (the options it takes are the ones the synopsis names),
/// the lines `--help` shows for it, and how its words become an action. The parser, `--help`,
/// btcctl(1)'s command headings and the completions follow this table; `CtlTableTests` fails
/// when one of them drifts.
public struct CtlVerb: Sendable {
    /// `status [--json | --unit UNIT]`: the name, then options and operands in the help's
    /// notation (UPPER-CASE words are values).
    public let synopsis: String
    public let summary: [String]
    let action: @Sendable (CtlWords) throws(CtlUsageError) -> CtlAction

    public var name: Substring { synopsis.prefix { $0 != " " } }

    /// The options it takes besides the global ones: every `--word` of the synopsis.
    public var flags: [String] {
        var flags: [String] = [], rest = Substring(synopsis)
        while let start = rest.firstRange(of: "--") {
            let flag = rest[start.lowerBound...].prefix { $0 == "-" || $0.isLetter }
            if !CtlFlag.global.contains(String(flag)) { flags.append(String(flag)) }
            rest = rest[flag.endIndex...]
        }
        return flags
    }

    init(_ synopsis: String, _ summary: [String], action: @escaping @Sendable (CtlWords) throws(CtlUsageError) -> CtlAction) {
        self.synopsis = synopsis
        self.summary = summary
        self.action = action
    }

    static func named(_ name: String) -> CtlVerb? {
        for verb in CtlCommandLine.verbs where verb.name == name { return verb }
        return nil
    }
}
