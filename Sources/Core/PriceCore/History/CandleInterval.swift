/// How long one candle is: a minute fills the week's minute history, a day the ten years of
/// daily closes. A candle's slot is its start in these units since the Unix epoch; a
/// `CandleBatch` carries each candle as a `MinuteBar` at its first minute either way.
public enum CandleInterval: Sendable, Hashable {
    case minute
    case day

    public var seconds: Int64 {
        switch self {
        case .minute: 60
        case .day: 86_400
        }
    }

    /// The slot `time` falls in.
    public func slot(of time: Timestamp) -> Int64 {
        time.millisecondsSinceEpoch.floorDivided(by: seconds * 1000).quotient
    }

    /// What one is called in a log line: "minute", "day".
    public var noun: String {
        switch self {
        case .minute: "minute"
        case .day: "day"
        }
    }
}
