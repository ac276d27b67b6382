import PriceCore
import WireProtocol

/// The replies as every reader gets them (the socket, HTTP, the metrics textfile): each first
/// asks a paced stream to read what it holds (without waiting for it), so that a stream nobody
/// watches is read when someone asks, not only once a second. The daemon's own replies know
/// nothing of pacing; this is the one place that joins the two.
public struct CaughtUpReplies: StatusProvider {
    private let replies: any StatusProvider
    private let catchUp: @Sendable () -> Void
    private let watcherJoins: @Sendable () -> Void

    /// `catchUp` asks for what waits to be read and returns at once; `watcherJoins` also
    /// starts reading at the publish interval.
    public init(_ replies: any StatusProvider, catchUp: @escaping @Sendable () -> Void, watcherJoins: @escaping @Sendable () -> Void) {
        self.replies = replies
        self.catchUp = catchUp
        self.watcherJoins = watcherJoins
    }

    /// `replies` caught up by `reads`, or as they are when nothing is paced.
    public static func serving(_ replies: any StatusProvider, reads: PacedReads?) -> any StatusProvider {
        guard let reads else { return replies }
        return CaughtUpReplies(replies, catchUp: { reads.catchUp() }, watcherJoins: { reads.watcherJoins() })
    }

    public func statusReply() -> String { catchUp(); return replies.statusReply() }
    public func priceReply() -> String { catchUp(); return replies.priceReply() }
    public func sourcesReport() -> String { catchUp(); return replies.sourcesReport() }
    public func historyReply(_ query: HistoryQuery) -> String { catchUp(); return replies.historyReply(query) }
    /// Days do not depend on the latest trade: nothing to catch up.
    public func dailyReply(_ query: DailyQuery) -> String { replies.dailyReply(query) }
    public func metricsReply() -> String { catchUp(); return replies.metricsReply() }
    public func firstWatchLine() -> String { watcherJoins(); return replies.statusReply() }
    public func status() -> StatusMessage { catchUp(); return replies.status() }
    public func sources() -> SourcesReport { catchUp(); return replies.sources() }
    public func history(_ query: HistoryQuery) -> HistoryReply { catchUp(); return replies.history(query) }
    public func daily(_ query: DailyQuery) -> DailyReply { replies.daily(query) }
    /// The moment asked may be this minute: the latest trade counts.
    public func price(at query: PriceAtQuery) -> PriceAtReply { catchUp(); return replies.price(at: query) }
    public var servedCurrencies: [String] { replies.servedCurrencies }
    /// Another currency's replies, caught up alike (a stream carries every currency it serves).
    public func replies(for currency: String) -> (any StatusProvider)? {
        replies.replies(for: currency).map { CaughtUpReplies($0, catchUp: catchUp, watcherJoins: watcherJoins) }
    }
}
