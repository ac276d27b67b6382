import PriceCore

/// What one call through the intake changed. The intake decides and mutates the board; those
/// who follow it (`IntakeFollower`: the publisher, systemd's status, the quote's persister, the
/// first-quote log) each act on the change, and read what else they need from the board.
public struct IntakeChange: Sendable, Equatable {
    /// Watchers see a difference: the state, the price, the day range or a saving problem.
    public var watchersSee = false
    /// Time passed without a change while the quote is not fresh: systemd's status text shows
    /// its growing age.
    public var statusAged = false
    /// The live quote (polled or streamed) the board now serves, to be saved.
    public var kept: Quote?
    /// The board took the previous run's quote, so the next live one is not a first.
    public var restoredQuote = false

    public init(watchersSee: Bool = false, statusAged: Bool = false, kept: Quote? = nil, restoredQuote: Bool = false) {
        self.watchersSee = watchersSee
        self.statusAged = statusAged
        self.kept = kept
        self.restoredQuote = restoredQuote
    }

    var isEmpty: Bool { !watchersSee && !statusAged && kept == nil && !restoredQuote }
}

/// Acts on the intake's changes, on the thread that made the change: it must not block.
public protocol IntakeFollower: Sendable {
    func follow(_ change: IntakeChange)
}

extension WatchPublisher: IntakeFollower {
    /// Reached through `any IntakeFollower`, so specialised for the daemon's clock here, or every
    /// streamed read would pay for generic metadata lookups (see `DaemonClock`).
    @_specialize(where C == DaemonClock)
    public func follow(_ change: IntakeChange) {
        if change.watchersSee { publish() }
    }
}

extension QuotePersister: IntakeFollower {
    public func follow(_ change: IntakeChange) {
        if let quote = change.kept { offer(quote) }
    }
}
