import PriceCore
import Synchronization

/// What the stream has said in the log: one line when a venue's stream goes down or is
/// refused, one when a stream is live again. A venue's refusal is said once, until it streams.
final class StreamAnnouncements: Sendable {
    private let said = Mutex((live: false, lastLive: String?.none, down: Set<String>(), refused: Set<String>()))

    /// The line to log now that `venue` carries trades, if any.
    func live(_ venue: String) -> String? {
        said.withLock { said in
            guard !said.live else { return nil }
            let back = said.down.contains(venue) && said.lastLive == venue
            said = (live: true, lastLive: venue, down: [], refused: said.refused.subtracting([venue]))
            return back ? "\(venue) stream is back; polling rests" : "streaming trades from \(venue); polling rests"
        }
    }

    /// Whether to warn that `venue`'s stream went down.
    func down(_ venue: String) -> Bool {
        said.withLock { said in
            said.live = false
            return said.down.insert(venue).inserted
        }
    }

    /// Whether to warn that `venue` refused the stream.
    func refused(_ venue: String) -> Bool {
        said.withLock { said in
            said.live = false
            return said.refused.insert(venue).inserted
        }
    }
}

extension StreamLink.Ending: CustomStringConvertible {
    public var description: String {
        switch self {
        case .closed(let reason), .failed(let reason): reason
        case .refused: "upgrade declined"
        case .stalled(let after): "no message for \(after.humanReadable)"
        }
    }
}
