import Logging
import ListenerKit
import PriceCore
import SocketServer
import Synchronization
import Testing
import TestClocks
import WireProtocol

/// The socket's fair shares and its request routing, without a socket: a fake clock, fake peers
/// (UIDs) and a fake status.
@Suite("Connection budget and request routing, without sockets")
struct ConnectionBudgetTests {
    final class FakeClock: Sendable {
        let now = Mutex(Duration.zero)
        func advance(_ by: Duration) { now.withLock { $0 += by } }
    }

    /// The log is kept in memory, so a test reads what an operator would see.
    static func budget(maximum: Int = 16, perUser: Int = 4, watchersPerUser: Int = 2) -> (UserBudget, LogRecorder, FakeClock) {
        let lines = LogRecorder(), clock = FakeClock()
        let budget = UserBudget(limits: ServerLimits(maximumConnections: maximum, connectionsPerUser: perUser, watchersPerUser: watchersPerUser),
                                      wording: .socket, logger: lines.logger, now: { clock.now.withLock { $0 } })
        return (budget, lines, clock)
    }

    /// `uid`'s next connection, held by its own occupant as the server holds one.
    static func connect(_ budget: UserBudget, uid: UInt32) throws(UserBudget.Refusal) -> UserOccupant {
        UserOccupant(try budget.admit(uid))
    }

    /// Why `uid` would be turned away now, or nil if it would get a place (given back at once).
    static func refusal(_ budget: UserBudget, uid: UInt32) -> UserBudget.Refusal? {
        do throws(UserBudget.Refusal) {
            try budget.admit(uid).release()
            return nil
        } catch {
            return error
        }
    }

    @Test func oneUserHoldsItsShareAndOthersStillGetIn() throws {
        let (budget, _, _) = Self.budget()
        let alice = try (0..<4).map { _ in try Self.connect(budget, uid: 1000) }
        #expect(Self.refusal(budget, uid: 1000) == .userFull(party: 1000, limit: 4))
        let bob = try Self.connect(budget, uid: 1001)
        #expect(bob.party == 1001, "another user is not held back by alice's share")
        #expect(Self.refusal(budget, uid: 0) == nil, "root is a user like any other, with its own share")
        alice[0].leave()
        let again = try Self.connect(budget, uid: 1000)
        #expect(again.party == 1000, "a released place is alice's again")
        #expect(budget.openConnections == 5, "alice's four and bob's one: \(budget.openConnections)")
    }

    @Test func watchersLeaveRoomForRequests() throws {
        // 16 places, 2 reserved for requests; per user at most 4 connections, 2 of them watching.
        let (budget, _, _) = Self.budget()
        #expect(UserBudget.reservedForRequests(16) == 2 && budget.maximumWatchers == 14)
        let seat = try Self.connect(budget, uid: 1000)
        #expect(seat.startWatching() == nil && seat.isWatching)
        #expect(seat.startWatching() == nil, "watching twice takes nothing more")
        let second = try Self.connect(budget, uid: 1000), third = try Self.connect(budget, uid: 1000)
        #expect(second.startWatching() == nil)
        #expect(third.startWatching() == .userWatchersFull(party: 1000, limit: 2))
        #expect(!third.isWatching && third.party == 1000, "a refused seat is unchanged and still held")
        let prompt = try Self.connect(budget, uid: 1000)
        #expect(prompt.party == 1000, "its own prompt still finds room")
        prompt.leave()
        third.leave()

        // Seven users with two watchers each fill the 14 watcher places; an eighth user's
        // watch is refused for everyone's sake, its one-shot request is not.
        var watchers: [UserOccupant] = []
        for uid in UInt32(2000)..<2006 {
            for _ in 0..<2 {
                let watcher = try Self.connect(budget, uid: uid)
                #expect(watcher.startWatching() == nil)
                watchers.append(watcher)
            }
        }
        let late = try Self.connect(budget, uid: 3000)
        #expect(late.startWatching() == .watchersFull(limit: 14))
        let oneShot = try Self.connect(budget, uid: 3001)
        #expect(oneShot.party == 3001, "one-shot requests take the reserved places")
        #expect(Self.refusal(budget, uid: 3002) == .full(limit: 16), "the cap holds")
        late.leave()
        #expect(Self.refusal(budget, uid: 3002) == nil)
        withExtendedLifetime((seat, second, watchers, oneShot)) {}
    }

    @Test func aUserAtItsShareIsLoggedOncePerQuietPeriodAndOnceWhenBelowAgain() throws {
        let (budget, lines, clock) = Self.budget()
        let seats = try (0..<4).map { _ in try Self.connect(budget, uid: 1000) }
        for _ in 0..<50 { _ = Self.refusal(budget, uid: 1000) }
        #expect(lines.messages(at: .warning).count == 1, "one warning for a burst of refusals: \(lines.lines.value)")
        #expect(lines.messages(at: .warning).first?.contains("uid 1000 holds its share of the socket, 4 connections (BTCPRICED_USER_CONNECTIONS)") == true)
        seats[0].leave()
        #expect(lines.messages(at: .notice) == ["uid 1000 is below its share of the socket again; 50 of its connections were refused"])

        // Bumping into the share again within the quiet period is not logged again; after it, it is.
        let again = try Self.connect(budget, uid: 1000)
        _ = Self.refusal(budget, uid: 1000)
        #expect(lines.messages(at: .warning).count == 1)
        again.leave()
        clock.advance(UserBudget.quietPeriod + .seconds(1))
        let last = try Self.connect(budget, uid: 1000)
        _ = Self.refusal(budget, uid: 1000)
        #expect(lines.messages(at: .warning).count == 2, "\(lines.lines.value)")
        withExtendedLifetime((seats, last)) {}
    }

    /// A seat cannot be copied, so nothing can give it back twice; its occupant leaves once,
    /// and one dropped without leaving (a failed hand-off) still gives its place back.
    @Test func aPlaceIsGivenBackExactlyOnce() throws {
        let (budget, _, _) = Self.budget(perUser: 2)
        let occupant = try Self.connect(budget, uid: 1000)
        occupant.leave()
        occupant.leave()
        #expect(budget.openConnections == 0 && occupant.party == nil, "left once: \(budget.openConnections) open")
        let kept = try Self.connect(budget, uid: 1000)
        do {
            let forgotten = try Self.connect(budget, uid: 1000)
            #expect(forgotten.startWatching() == nil)
            #expect(Self.refusal(budget, uid: 1000) == .userFull(party: 1000, limit: 2))
        }
        #expect(budget.openConnections == 1, "the dropped occupant gave its place back: \(budget.openConnections) open")
        #expect(Self.refusal(budget, uid: 1000) == nil)
        withExtendedLifetime(kept) {}
    }

    /// A wait for the counts checks its condition, sleeps, and is woken by the change that meets
    /// it; a wait that can never be met ends when its task is cancelled.
    @Test(.timeLimit(.minutes(1))) func aWaitForTheCountsWakesAtTheChangeAndEndsWhenCancelled() async throws {
        let (budget, _, _) = Self.budget()
        let first = try Self.connect(budget, uid: 1000)
        let (checks, seen) = AsyncStream.makeStream(of: Int.self)
        let met = Task {
            await budget.until {
                let open = budget.openConnections
                seen.yield(open)
                return open == 2
            }
        }
        var checked = checks.makeAsyncIterator()
        #expect(await checked.next() == 1, "checked before the change, and not met")
        let second = try Self.connect(budget, uid: 1001)
        #expect(await checked.next() == 2, "checked again after the change, and met")
        await met.value

        let never = Task {
            await budget.until { budget.openConnections == 99 }
            return budget.openConnections
        }
        never.cancel()
        #expect(await never.value == 2, "ended by the cancel, not by a change")
        withExtendedLifetime((first, second)) {}
    }

    struct FakeStatus: StatusProvider {
        func statusReply() -> String { "{\"state\":\"fresh\"}\n" }
        func priceReply() -> String { "85866.185\n" }
        func sourcesReport() -> String { "{\"mode\":\"fallback\"}\n" }
        func historyReply(_ query: HistoryQuery) -> String { "history \(query)\n" }
        func dailyReply(_ query: DailyQuery) -> String { "daily \(query)\n" }
        func metricsReply() -> String { "# metrics\n" }
    }

    @Test("every request line is routed to its answer", arguments: [
        ("price", RequestResponder.Answer.reply("85866.185\n")),
        ("status", .reply("{\"state\":\"fresh\"}\n")),
        ("sources", .reply("{\"mode\":\"fallback\"}\n")),
        ("metrics", .reply("# metrics\n")),
        ("ping", .reply("pong\n")),
        ("watch", .startStream(.primary)),
    ])
    func routing(line: String, expected: RequestResponder.Answer) {
        let answer = RequestResponder.answer(Request.parse(Array(line.utf8)), status: FakeStatus(), version: "9.9.9")
        #expect(answer == expected, "\(line): \(answer)")
    }

    /// A daemon serving USD and EUR: each currency's replies, by the code a request names.
    struct TwoCurrencies: StatusProvider {
        var euro = false
        func statusReply() -> String { euro ? "{\"state\":\"fresh\",\"currency\":\"EUR\"}\n" : "{\"state\":\"fresh\"}\n" }
        func priceReply() -> String { euro ? "79000\n" : "85866.185\n" }
        func sourcesReport() -> String { "{\"mode\":\"fallback\"}\n" }
        func historyReply(_ query: HistoryQuery) -> String { "history \(query)\n" }
        func dailyReply(_ query: DailyQuery) -> String { "daily \(query)\n" }
        func metricsReply() -> String { "# metrics\n" }
        var servedCurrencies: [String] { ["USD", "EUR"] }
        func replies(for currency: String) -> (any StatusProvider)? {
            switch currency {
            case "USD": TwoCurrencies()
            case "EUR": TwoCurrencies(euro: true)
            default: nil
            }
        }
    }

    @Test("watch follows the currency it names, or every one", arguments: [
        ("watch EUR", RequestResponder.Answer.startStream(.currency("EUR"))),
        ("watch usd", .startStream(.primary)),
        ("watch *", .startStream(.every)),
        ("watch", .startStream(.primary)),
        ("watch NOK", .reply(ErrorReply.notServed("NOK", served: ["USD", "EUR"]).line)),
    ])
    func watchRouting(line: String, expected: RequestResponder.Answer) {
        let answer = RequestResponder.answer(Request.Addressed.parse(Array(line.utf8)), status: TwoCurrencies(), version: "9.9.9")
        #expect(answer == expected, "\(line): \(answer)")
    }

    @Test func aWatchStartsWithTheStatusOfEachCurrencyItFollows() {
        let (usd, eur) = ("{\"state\":\"fresh\"}\n", "{\"state\":\"fresh\",\"currency\":\"EUR\"}\n")
        #expect(RequestResponder.streamStart(status: TwoCurrencies(), topic: .currency("EUR")) == eur)
        #expect(RequestResponder.streamStart(status: TwoCurrencies(), topic: .every) == usd + eur)
        #expect(RequestResponder.streamStart(status: TwoCurrencies(), topic: .primary) == usd)
    }

    @Test func versionBadRequestsAndTheStreamsFirstLine() {
        guard case .reply(let version) = RequestResponder.answer(Request.parse(Array("version".utf8)), status: FakeStatus(), version: "9.9.9") else {
            Issue.record("version was not a reply")
            return
        }
        #expect(version.contains("9.9.9"))
        guard case .reply(let error) = RequestResponder.answer(Request.parse(Array("bogus".utf8)), status: FakeStatus(), version: "9.9.9") else {
            Issue.record("a bad request was not a reply")
            return
        }
        #expect(error.contains("\"error\""), "\(error)")
        #expect(RequestResponder.streamStart(status: FakeStatus()) == "{\"state\":\"fresh\"}\n")
    }
}
