import WireProtocol

/// Up or down by the 24 h change; flat or unknown shows nothing.
enum Direction {
    case up, down, flat

    init(_ status: StatusMessage) {
        let sign = status.trend.change24h.flatMap(DecimalText.sign) ?? 0
        self = sign > 0 ? .up : sign < 0 ? .down : .flat
    }

    var arrow: String {
        switch self {
        case .up: "▲"
        case .down: "▼"
        case .flat: ""
        }
    }

    /// The Waybar class; nil when flat or unknown.
    var className: String? {
        switch self {
        case .up: "up"
        case .down: "down"
        case .flat: nil
        }
    }
}
