import Logging
import PriceCore
import Synchronization

/// The one door every price enters by, polled or streamed. It stamps a streamed quote with
/// the venue's time, applies the venue's order rule, updates the board, tells the publisher
/// (the only writer to watchers), systemd's status and the persister. Nothing on this path
/// renders: the board makes its snapshot when someone asks.
public final class PriceIntake<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public let board: PriceBoard<C>
    public let publisher: WatchPublisher<C>
    private let health: DaemonHealth<C>
    private let persister: QuotePersister
    private let logger: Logger
    private let firstQuoteLogged: Mutex<Bool>

    public init(board: PriceBoard<C>, publisher: WatchPublisher<C>, health: DaemonHealth<C>, persister: QuotePersister, logger: Logger) {
        self.board = board
        self.publisher = publisher
        self.health = health
        self.persister = persister
        self.logger = logger
        firstQuoteLogged = Mutex(board.quote != nil)
    }

    /// A fetch cycle's outcome: its quote (stamped by the fetch loop) and its failures.
    public func accept(_ report: CycleReport) {
        if board.record(report) { changed() }
        // A polled quote that the board kept out (a healthy stream's trades are newer) is not saved either.
        if let quote = report.quote, board.quote == quote { accepted(quote) }
    }

    /// A stream's messages, in order of arrival: one message, or all that one read of the
    /// connection found. `admits` is the venue's order rule: late or reordered messages, and a
    /// ticker's close behind a newer trade, never move the price back. Only the newest admitted
    /// price is applied; a superseded trade costs its order check and nothing else.
    public func accept(_ events: [StreamEvent], from venue: SourceName, admits: (StreamEvent) -> Bool) {
        var newest: (trade: SourceQuote, stamp: TradeStamp?)?
        var dayChanged = false
        for event in events {
            switch event {
            case .trade(let trade, let stamp), .tickerClose(let trade, let stamp):
                if admits(event) { newest = (trade, stamp) }
            case .dayRange(let day):
                if board.record(day: day, from: venue) { dayChanged = true }
            case .alive, .closingSoon:
                continue
            }
        }
        let quote = newest.map { trade, stamp in
            let (timestamp, ageOnArrival) = ExchangeTime.stamp(stamp, receivedAt: board.wallClock.now())
            return (Quote(price: trade.price, currency: trade.quoteAsset, symbol: trade.symbol, source: venue, timestamp: timestamp), ageOnArrival)
        }
        let quoteChanged = quote.map { board.record(streamed: $0.0, ageOnArrival: $0.1) } ?? false
        // One publish for the read, however many of its messages changed the board: a second
        // one within the interval would hold a line and wake the loop again to flush it.
        if quoteChanged { changed() } else if dayChanged { publisher.publish() }
        if let (quote, _) = quote { accepted(quote) }
    }

    /// Time alone changed the state (the quote turned stale): watchers and systemd hear it.
    /// Returns whether it changed.
    @discardableResult
    public func timePassed() -> Bool {
        guard board.refreshState() else { return false }
        changed()
        return true
    }

    /// Anything else that changes what watchers see: a failing disk, a reload's policy.
    public func boardChanged(_ didChange: Bool) {
        if didChange { changed() }
    }

    private func changed() {
        publisher.publish()
        let board = self.board
        health.reportStatus(kind: board.stateKey.kind) { board.statusSummary() }
    }

    private func accepted(_ quote: Quote) {
        persister.offer(quote)
        guard firstQuoteLogged.withLock({ logged in defer { logged = true }; return !logged }) else { return }
        logger.info("first quote: \(quote.price) \(quote.currency) via \(quote.source) (\(quote.symbol))",
                    metadata: ["source": "\(quote.source)", "price": "\(quote.price)", "currency": "\(quote.currency)", "symbol": "\(quote.symbol)", "message_id": "\(MessageID.firstQuote)"])
    }
}
