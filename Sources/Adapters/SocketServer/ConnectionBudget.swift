import Logging
import Synchronization

/// Every admit and release of a socket connection, and the fair share of each local user.
///
/// The same UID is one party, whatever its processes; root is not exempt. One UID holds at most
/// `perUser` connections, and at most `watchersPerUser` of them as `watch` streams, so its own
/// one-shot requests always find room. `watch` streams together leave `reservedForRequests`
/// places free, so a prompt is answered even when every other place is a watcher.
public final class ConnectionBudget: Sendable {
    /// One connection's place, from admit to close. Not copyable: one owner holds it at a time
    /// (the `Occupant` of its connection), and giving it back consumes it, so a place can be
    /// neither released twice nor forgotten: a seat that goes out of scope is given back.
    public struct Seat: ~Copyable, Sendable {
        public let uid: UInt32
        public fileprivate(set) var watching = false
        let budget: ConnectionBudget

        fileprivate init(uid: UInt32, budget: ConnectionBudget) {
            self.uid = uid
            self.budget = budget
        }

        /// Gives the place back now (its end of life does it).
        public consuming func release() {}

        deinit { budget.giveBack(uid: uid, watching: watching) }
    }

    public enum Refusal: Error, Equatable {
        case full(limit: Int)
        case userFull(uid: UInt32, limit: Int)
        case watchersFull(limit: Int)
        case userWatchersFull(uid: UInt32, limit: Int)
        /// The kernel could not say who connected (SO_PEERCRED failed).
        case unknownPeer

        public var isPerUser: Bool {
            switch self {
            case .userFull, .userWatchersFull: true
            case .full, .watchersFull, .unknownPeer: false
            }
        }

        public var message: String {
            switch self {
            case .full(let limit): "too many connections (limit \(limit)); try again"
            case .userFull(let uid, let limit):
                "uid \(uid) already holds \(limit) connections, its share of the socket (BTCPRICED_USER_CONNECTIONS); close some and try again"
            case .watchersFull(let limit): "too many watch streams (limit \(limit)); try again later"
            case .userWatchersFull(let uid, let limit):
                "uid \(uid) already holds \(limit) watch streams, its share of the socket (BTCPRICED_USER_WATCHERS); close some and try again"
            case .unknownPeer: "the daemon could not tell which user connected; try again"
            }
        }
    }

    public let maximum: Int
    public let perUser: Int
    public let watchersPerUser: Int
    public let maximumWatchers: Int

    private struct Account {
        var connections = 0
        var watchers = 0
        /// Refusing this UID now, and whether that was logged (at most once a `quietPeriod`).
        var refusing = false
        var refusalLogged = false
        var refused = 0
        var lastLogged: Duration?
    }

    private struct State {
        var open = 0
        var watchers = 0
        var accounts: [UInt32: Account] = [:]
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let now: @Sendable () -> Duration
    /// A UID that keeps bumping into its share is logged again only after this long.
    public static let quietPeriod: Duration = .seconds(60)

    /// `now` is any monotonic reading (the front door passes CLOCK_MONOTONIC); read only when a
    /// refusal may need logging.
    public init(limits: ServerLimits, logger: Logger, now: @escaping @Sendable () -> Duration) {
        maximum = max(1, limits.maximumConnections)
        // Whatever the cap, one UID leaves the reserved places to everyone else.
        perUser = max(1, min(limits.connectionsPerUser, maximum - Self.reservedForRequests(maximum)))
        watchersPerUser = max(0, min(limits.watchersPerUser, perUser - 1))
        maximumWatchers = max(0, maximum - Self.reservedForRequests(maximum))
        self.logger = logger
        self.now = now
    }

    /// Places no single UID, and no `watch` stream, may take: an eighth of the cap.
    public static func reservedForRequests(_ maximum: Int) -> Int { max(1, maximum / 8) }

    /// A new connection from `uid`, not yet watching.
    public func admit(uid: UInt32) throws(Refusal) -> Seat {
        let (refusal, line) = state.withLock { state -> (Refusal?, Logger.Message?) in
            guard state.open < maximum else { return (.full(limit: maximum), nil) }
            // In place: one lookup per accept, the front door's hot path.
            switch Self.take(&state.accounts[uid, default: Account()], uid: uid, limit: perUser,
                             of: \.connections, what: "\(perUser) connections (BTCPRICED_USER_CONNECTIONS)", now: now) {
            case .refused(let line): return (.userFull(uid: uid, limit: perUser), line)
            case .taken:
                state.open += 1
                return (nil, nil)
            }
        }
        if let line { logger.warning(line) }
        if let refusal { throw refusal }
        return Seat(uid: uid, budget: self)
    }

    /// The connection asked for `watch`; on refusal the seat is unchanged and still held.
    public func startWatching(_ seat: inout Seat) -> Refusal? {
        guard !seat.watching else { return nil }
        let uid = seat.uid
        let (refusal, line) = state.withLock { state -> (Refusal?, Logger.Message?) in
            // The user's own share speaks first: that refusal is the one its owner can act on.
            let withinShare = (state.accounts[uid]?.watchers ?? 0) < watchersPerUser
            if withinShare && state.watchers >= maximumWatchers { return (.watchersFull(limit: maximumWatchers), nil) }
            switch Self.take(&state.accounts[uid, default: Account()], uid: uid, limit: watchersPerUser,
                             of: \.watchers, what: "\(watchersPerUser) watch streams (BTCPRICED_USER_WATCHERS)", now: now) {
            case .refused(let line): return (.userWatchersFull(uid: uid, limit: watchersPerUser), line)
            case .taken:
                state.watchers += 1
                return (nil, nil)
            }
        }
        if let line { logger.warning(line) }
        if refusal == nil { seat.watching = true }
        return refusal
    }

    /// Called once per seat, as it ends.
    fileprivate func giveBack(uid: UInt32, watching: Bool) {
        let line = state.withLock { state -> Logger.Message? in
            guard var account = state.accounts[uid], account.connections > 0 else { return nil }
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
                    line = "uid \(uid) is below its share of the socket again; \(account.refused) of its connections were refused"
                    account.refusalLogged = false
                }
                account.refused = 0
            }
            state.accounts[uid] = account.connections == 0 && !account.refusing && account.lastLogged == nil ? nil : account
            return line
        }
        if let line { logger.notice(line) }
    }

    private enum Take {
        case taken
        /// With the line to log when this starts a refusal not logged within the quiet period.
        case refused(Logger.Message?)
    }

    /// Counts one more in `account`'s `count` if it is below `limit`; otherwise records the refusal.
    private static func take(_ account: inout Account, uid: UInt32, limit: Int, of count: WritableKeyPath<Account, Int>,
                             what: String, now: () -> Duration) -> Take {
        guard account[keyPath: count] >= limit else {
            account[keyPath: count] += 1
            return .taken
        }
        account.refused += 1
        guard !account.refusing else { return .refused(nil) }
        account.refusing = true
        // The clock is read only here, not on every accept.
        let instant = now()
        if let last = account.lastLogged, instant - last < quietPeriod { return .refused(nil) }
        account.lastLogged = instant
        account.refusalLogged = true
        return .refused("uid \(uid) holds its share of the socket, \(what); refusing its new connections until some close")
    }

    public var openConnections: Int { state.withLock { $0.open } }
}
