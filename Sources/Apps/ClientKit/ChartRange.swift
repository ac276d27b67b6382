import WireProtocol

/// What `btcctl chart --range` draws: the daemon's minutes of the last hour, day or week, or
/// its daily bars of the last year.
public enum ChartRange: Sendable, Hashable {
    case minutes(HistoryRange)
    case year

    public static let names = "1h, 24h, 7d or 1y"

    public init?(_ text: String) {
        if text == "1y" {
            self = .year
        } else if let range = HistoryRange(rawValue: text) {
            self = .minutes(range)
        } else {
            return nil
        }
    }

    public var name: String {
        switch self {
        case .minutes(let range): range.rawValue
        case .year: "1y"
        }
    }
}
