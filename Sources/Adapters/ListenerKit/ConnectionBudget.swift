import Logging
import Synchronization

/// Every admit and release of a server's connections, and the fair share of each party: a
/// local user (UID) on the Unix socket, a remote address on the HTTP listener.
///
/// The same party is one, whatever its processes; root is not exempt. One party holds at most
/// `perUser` connections, and at most `watchersPerUser` of them as streams (`watch`, or the
/// HTTP event stream), so its own one-shot requests always find room. Streams together leave
/// `reservedForRequests` places free, so a prompt is answered even when every other place is a
/// watcher.
public final class ConnectionBudget<Party: Hashable & Sendable & CustomStringConvertible>: Sendable {
    /// One connection's place, from admit to close. Not copyable: one owner holds it at a time
    /// (the `Occupant` of its connection), and giving it back consumes it, so a place can be
    /// neither released twice nor forgotten: a seat that goes out of scope is given back.
    public struct Seat: ~Copyable, Sendable {
        public let party: Party
        public fileprivate(set) var watching = false
        let budget: ConnectionBudget

        fileprivate init(party: Party, budget: ConnectionBudget) {
            self.party = party
            self.budget = budget
        }

        /// Gives the place back now (its end of life does it).
        public consuming func release() {}

        deinit { budget.giveBack(party: party, watching: watching) }
    }

    public enum Refusal: Error, Equatable {
        case full(limit: Int)
        case userFull(party: Party, limit: Int)
        case watchersFull(limit: Int)
        case userWatchersFull(party: Party, limit: Int)
        /// The kernel could not say who connected (SO_PEERCRED failed).
        case unknownPeer

        public var isPerUser: Bool {
            switch self {
            case .userFull, .userWatchersFull: true
            case .full, .watchersFull, .unknownPeer: false
            }
        }
    }

    /// How refusals and log lines name a party and the server: `uid 1000` and "the socket", or
    /// `127.0.0.1` and "the HTTP listener".
    public struct Wording: Sendable {
        public var party: @Sendable (Party) -> String
        public var server: String

        public init(server: String, party: @escaping @Sendable (Party) -> String) {
            self.server = server
            self.party = party
        }
    }

    public let maximum: Int
    public let perUser: Int
    public let watchersPerUser: Int
    public let maximumWatchers: Int
    public let wording: Wording

    private struct Account {
        var connections = 0
        var watchers = 0
        /// Refusing this party now, and whether that was logged (at most once a `quietPeriod`).
        var refusing = false
        var refusalLogged = false
        var refused = 0
        var lastLogged: Duration?

        /// Which of its counts a take is of.
        enum Count { case connections, watchers }

        subscript(count: Count) -> Int {
            get { count == .connections ? connections : watchers }
            set { if count == .connections { connections = newValue } else { watchers = newValue } }
        }
    }

    private struct State {
        var open = 0
        var watchers = 0
        var accounts: [Party: Account] = [:]
        var waiters = CountWaiters()
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let now: @Sendable () -> Duration
    /// Places no single party, and no stream, may take: an eighth of the cap.
    public static func reservedForRequests(_ maximum: Int) -> Int { max(1, maximum / 8) }

    /// A party that keeps bumping into its share is logged again only after this long.
    public static var quietPeriod: Duration { .seconds(60) }

    /// `now` is any monotonic reading (the front door passes CLOCK_MONOTONIC); read only when a
    /// refusal may need logging.
    public init(limits: ServerLimits, wording: Wording, logger: Logger, now: @escaping @Sendable () -> Duration) {
        maximum = max(1, limits.maximumConnections)
        // Whatever the cap, one party leaves the reserved places to everyone else.
        perUser = max(1, min(limits.connectionsPerUser, maximum - Self.reservedForRequests(maximum)))
        watchersPerUser = max(0, min(limits.watchersPerUser, perUser - 1))
        maximumWatchers = max(0, maximum - Self.reservedForRequests(maximum))
        self.wording = wording
        self.logger = logger
        self.now = now
    }

    /// A new connection from `party`, not yet watching.
    // Specialised here for both listeners' parties: reached from another module, a generic
    // budget would look up its metadata on every accept and close (the socket's hot path).
    @_specialize(exported: true, where Party == UInt32)
    @_specialize(exported: true, where Party == String)
    public func admit(_ party: Party) throws(Refusal) -> Seat {
        let (refusal, line, woken) = state.withLock { state -> (Refusal?, Logger.Message?, [CountWaiters.Waiter]) in
            guard state.open < maximum else { return (.full(limit: maximum), nil, []) }
            // In place: one lookup per accept, the front door's hot path.
            switch take(&state.accounts[party, default: Account()], party: party, limit: perUser,
                        of: .connections, what: "\(perUser) connections (BTCPRICED_USER_CONNECTIONS)") {
            case .refused(let line): return (.userFull(party: party, limit: perUser), line, [])
            case .taken:
                state.open += 1
                return (nil, nil, state.waiters.changed())
            }
        }
        woken.forEach { $0.resume() }
        if let line { logger.warning(line) }
        if let refusal { throw refusal }
        return Seat(party: party, budget: self)
    }

    /// The connection asked for a stream; on refusal the seat is unchanged and still held.
    @_specialize(exported: true, where Party == UInt32)
    @_specialize(exported: true, where Party == String)
    public func startWatching(_ seat: inout Seat) -> Refusal? {
        guard !seat.watching else { return nil }
        let party = seat.party
        let (refusal, line, woken) = state.withLock { state -> (Refusal?, Logger.Message?, [CountWaiters.Waiter]) in
            // The party's own share speaks first: that refusal is the one its owner can act on.
            let withinShare = (state.accounts[party]?.watchers ?? 0) < watchersPerUser
            if withinShare && state.watchers >= maximumWatchers { return (.watchersFull(limit: maximumWatchers), nil, []) }
            switch take(&state.accounts[party, default: Account()], party: party, limit: watchersPerUser,
                        of: .watchers, what: "\(watchersPerUser) watch streams (BTCPRICED_USER_WATCHERS)") {
            case .refused(let line): return (.userWatchersFull(party: party, limit: watchersPerUser), line, [])
            case .taken:
                state.watchers += 1
                return (nil, nil, state.waiters.changed())
            }
        }
        woken.forEach { $0.resume() }
        if let line { logger.warning(line) }
        if refusal == nil { seat.watching = true }
        return refusal
    }

    /// What a refused client is told: what is full, whose share it is and what to do.
    public func message(for refusal: Refusal) -> String {
        switch refusal {
        case .full(let limit): "too many connections (limit \(limit)); try again"
        case .userFull(let party, let limit):
            "\(wording.party(party)) already holds \(limit) connections, its share of \(wording.server) (BTCPRICED_USER_CONNECTIONS); close some and try again"
        case .watchersFull(let limit): "too many watch streams (limit \(limit)); try again later"
        case .userWatchersFull(let party, let limit):
            "\(wording.party(party)) already holds \(limit) watch streams, its share of \(wording.server) (BTCPRICED_USER_WATCHERS); close some and try again"
        case .unknownPeer: "the daemon could not tell which user connected; try again"
        }
    }

    /// Called once per seat, as it ends.
    @_specialize(where Party == UInt32)
    @_specialize(where Party == String)
    fileprivate func giveBack(party: Party, watching: Bool) {
        let (line, woken) = state.withLock { state -> (Logger.Message?, [CountWaiters.Waiter]) in
            guard var account = state.accounts[party], account.connections > 0 else { return (nil, []) }
            account.connections -= 1
            state.open -= 1
            if watching {
                account.watchers -= 1
                state.watchers -= 1
            }
            var line: Logger.Message?
            if account.refusing && account.connections < perUser && account.watchers < watchersPerUser {
                account.refusing = false
                if account.refusalLogged {
                    line = "\(wording.party(party)) is below its share of \(wording.server) again; \(account.refused) of its connections were refused"
                    account.refusalLogged = false
                }
                account.refused = 0
            }
            state.accounts[party] = account.connections == 0 && !account.refusing && account.lastLogged == nil ? nil : account
            return (line, state.waiters.changed())
        }
        woken.forEach { $0.resume() }
        if let line { logger.notice(line) }
    }

    private enum Take {
        case taken
        /// With the line to log when this starts a refusal not logged within the quiet period.
        case refused(Logger.Message?)
    }

    /// Counts one more in `account`'s `count` if it is below `limit`; otherwise records the refusal.
    /// `what` is made only for a refusal that is logged, not on every accept.
    private func take(_ account: inout Account, party: Party, limit: Int, of count: Account.Count, what: @autoclosure () -> String) -> Take {
        guard account[count] >= limit else {
            account[count] += 1
            return .taken
        }
        account.refused += 1
        guard !account.refusing else { return .refused(nil) }
        account.refusing = true
        // The clock is read only here, not on every accept.
        let instant = now()
        if let last = account.lastLogged, instant - last < Self.quietPeriod { return .refused(nil) }
        account.lastLogged = instant
        account.refusalLogged = true
        return .refused("\(wording.party(party)) holds its share of \(wording.server), \(what()); refusing its new connections until some close")
    }

    public var openConnections: Int { state.withLock { $0.open } }

    /// Something the server's counts depend on changed outside the budget (a watcher joined or
    /// left its loop's list, the bytes held for watchers drained): wakes whoever waits in `until`.
    public func countsChanged() {
        let woken = state.withLock { $0.waiters.changed() }
        woken.forEach { $0.resume() }
    }

    /// Returns once `condition` holds, checked after each change to the server's counts, or
    /// when the task is cancelled: how a drain or a test waits for connections and watchers to
    /// come and go, without polling.
    public func until(_ condition: () -> Bool) async {
        while !Task.isCancelled {
            let seen = state.withLock { $0.waiters.version }
            if condition() { return }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CountWaiters.Waiter) in
                    if !state.withLock({ $0.waiters.park(waiter, since: seen) }) { waiter.resume() }
                }
            } onCancel: {
                countsChanged()
            }
        }
    }
}

/// The Unix socket's budget: its parties are local users.
public typealias UserBudget = ConnectionBudget<UInt32>

extension ConnectionBudget.Wording where Party == UInt32 {
    public static var socket: Self { Self(server: "the socket") { "uid \($0)" } }
}
