import Logging
import Synchronization

/// Every admit and release of a socket connection, and the fair share of each local user.
///
/// The same UID is one party, whatever its processes; root is not exempt. One UID holds at most
/// `perUser` connections, and at most `watchersPerUser` of them as `watch` streams, so its own
/// one-shot requests always find room. `watch` streams together leave `reservedForRequests`
/// places free, so a prompt is answered even when every other place is a watcher.
final class ConnectionBudget: Sendable {
    /// What one connection holds; handed back to `release`.
    struct Seat: Sendable, Equatable {
        let uid: UInt32
        fileprivate(set) var watching = false
    }

    enum Refusal: Error, Equatable {
        case full(limit: Int)
        case userFull(uid: UInt32, limit: Int)
        case watchersFull(limit: Int)
        case userWatchersFull(uid: UInt32, limit: Int)

        var isPerUser: Bool {
            switch self {
            case .userFull, .userWatchersFull: true
            case .full, .watchersFull: false
            }
        }

        var message: String {
            switch self {
            case .full(let limit): "too many connections (limit \(limit)); try again"
            case .userFull(let uid, let limit):
                "uid \(uid) already holds \(limit) connections, its share of the socket (BTCPRICED_USER_CONNECTIONS); close some and try again"
            case .watchersFull(let limit): "too many watch streams (limit \(limit)); try again later"
            case .userWatchersFull(let uid, let limit):
                "uid \(uid) already holds \(limit) watch streams, its share of the socket (BTCPRICED_USER_WATCHERS); close some and try again"
            }
        }
    }

    let maximum: Int
    let perUser: Int
    let watchersPerUser: Int
    let maximumWatchers: Int

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
    static let quietPeriod: Duration = .seconds(60)

    init(limits: ServerLimits, logger: Logger, now: @escaping @Sendable () -> Duration) {
        maximum = max(1, limits.maximumConnections)
        // Whatever the cap, one UID leaves the reserved places to everyone else.
        perUser = max(1, min(limits.connectionsPerUser, maximum - Self.reservedForRequests(maximum)))
        watchersPerUser = max(0, min(limits.watchersPerUser, perUser - 1))
        maximumWatchers = max(0, maximum - Self.reservedForRequests(maximum))
        self.logger = logger
        self.now = now
    }

    /// Places no single UID, and no `watch` stream, may take: an eighth of the cap.
    static func reservedForRequests(_ maximum: Int) -> Int { max(1, maximum / 8) }

    /// A new connection from `uid`, not yet watching.
    func admit(uid: UInt32) -> Result<Seat, Refusal> {
        let instant = now()
        return state.withLock { state in
            guard state.open < maximum else { return .failure(.full(limit: maximum)) }
            var account = state.accounts[uid, default: Account()]
            defer { state.accounts[uid] = account }
            guard account.connections < perUser else {
                refuse(&account, uid: uid, at: instant, what: "\(perUser) connections (BTCPRICED_USER_CONNECTIONS)")
                return .failure(.userFull(uid: uid, limit: perUser))
            }
            account.connections += 1
            state.open += 1
            return .success(Seat(uid: uid))
        }
    }

    /// The connection asked for `watch`; on refusal the seat is unchanged and still held.
    func startWatching(_ seat: inout Seat) -> Refusal? {
        let instant = now()
        return state.withLock { state in
            guard !seat.watching else { return nil }
            var account = state.accounts[seat.uid, default: Account()]
            defer { state.accounts[seat.uid] = account }
            guard account.watchers < watchersPerUser else {
                refuse(&account, uid: seat.uid, at: instant, what: "\(watchersPerUser) watch streams (BTCPRICED_USER_WATCHERS)")
                return .userWatchersFull(uid: seat.uid, limit: watchersPerUser)
            }
            guard state.watchers < maximumWatchers else { return .watchersFull(limit: maximumWatchers) }
            account.watchers += 1
            state.watchers += 1
            seat.watching = true
            return nil
        }
    }

    func release(_ seat: Seat) {
        state.withLock { state in
            guard var account = state.accounts[seat.uid], account.connections > 0 else { return }
            account.connections -= 1
            state.open -= 1
            if seat.watching {
                account.watchers -= 1
                state.watchers -= 1
            }
            if account.refusing && account.connections < perUser && account.watchers < watchersPerUser {
                account.refusing = false
                if account.refusalLogged {
                    logger.notice("uid \(seat.uid) is below its share of the socket again; \(account.refused) of its connections were refused")
                    account.refusalLogged = false
                }
                account.refused = 0
            }
            if account.connections == 0 && !account.refusing && account.lastLogged == nil {
                state.accounts[seat.uid] = nil
            } else {
                state.accounts[seat.uid] = account
            }
        }
    }

    var openConnections: Int { state.withLock { $0.open } }

    private func refuse(_ account: inout Account, uid: UInt32, at instant: Duration, what: String) {
        account.refused += 1
        guard !account.refusing else { return }
        account.refusing = true
        if let last = account.lastLogged, instant - last < Self.quietPeriod { return }
        account.lastLogged = instant
        account.refusalLogged = true
        logger.warning("uid \(uid) holds its share of the socket, \(what); refusing its new connections until some close")
    }
}
