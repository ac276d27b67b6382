/// What the words of a btcctl command line said, before its verb turns them into an action.
struct CtlWords {
    var command: String?
    /// Words after the command: `convert`'s amount and unit.
    var operands: [String] = []
    /// Every option given, in order, to refuse one given twice or one its verb does not take.
    var seen: [String] = []
    var json = false, watch = false, strict = false, exitStatus = false, wide = false
    var notify = false, daily = false, csv = false, faraday = false
    var format: String?
    var symbol: String?
    var minimumInterval: Int?
    var timeoutText: String?
    var thresholds = PriceThresholds.none
    var range = ChartRange.minutes(.day)
    var width: Int?
    var unit = PriceUnit.fiat
    var band: AlertRule.Band?
    var exec: ChildCommand?
    var since: String?
    /// `history --at`'s moment, in Unix seconds.
    var at: Int64?
    /// `alert --move`: the move in basis points, the window in milliseconds, and which way.
    var move: Int128?
    var within: Int?
    var up = false, down = false
    var socket: String?
    var currency: String?
    /// The last option that took the next word as its value, and that word: when no command
    /// is left, it is likely the command (`btcctl --timeout status`).
    var valuedFlag = "", valuedText = ""

    func gave(_ flag: String) -> Bool { seen.contains(flag) }
}
