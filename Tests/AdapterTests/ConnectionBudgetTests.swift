import Logging
import SocketServer
import Synchronization
import Testing
import WireProtocol

/// The socket's fair shares and its request routing, without a socket: a fake clock, fake peers
/// (UIDs) and a fake status.
@Suite("Connection budget and request routing, without sockets")
struct ConnectionBudgetTests {
    /// Log lines kept in memory, so a test reads what an operator would see.
    final class RecordedLines: Sendable {
        let lines = Mutex<[(Logger.Level, String)]>([])
        var all: [(Logger.Level, String)] { lines.withLock { $0 } }
        func text(_ level: Logger.Level) -> [String] { all.filter { $0.0 == level }.map(\.1) }
    }

    struct RecordingHandler: LogHandler {
        let record: RecordedLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { record.lines.withLock { $0.append((event.level, event.message.description)) } }
    }

    final class FakeClock: Sendable {
        let now = Mutex(Duration.zero)
        func advance(_ by: Duration) { now.withLock { $0 += by } }
    }

    static func budget(maximum: Int = 16, perUser: Int = 4, watchersPerUser: Int = 2) -> (ConnectionBudget, RecordedLines, FakeClock) {
        let lines = RecordedLines(), clock = FakeClock()
        let logger = Logger(label: "test") { _ in RecordingHandler(record: lines) }
        let budget = ConnectionBudget(limits: ServerLimits(maximumConnections: maximum, connectionsPerUser: perUser, watchersPerUser: watchersPerUser),
                                      logger: logger, now: { clock.now.withLock { $0 } })
        return (budget, lines, clock)
    }

    @Test func oneUserHoldsItsShareAndOthersStillGetIn() throws {
        let (budget, _, _) = Self.budget()
        let alice = try (0..<4).map { _ in try budget.admit(uid: 1000).get() }
        #expect(budget.admit(uid: 1000) == .failure(.userFull(uid: 1000, limit: 4)))
        #expect(try budget.admit(uid: 1001).get().uid == 1001, "another user is not held back by alice's share")
        #expect(budget.admit(uid: 0) != .failure(.userFull(uid: 0, limit: 4)), "root is a user like any other, with its own share")
        budget.release(alice[0])
        #expect(try budget.admit(uid: 1000).get().uid == 1000, "a released place is alice's again")
        #expect(budget.openConnections == 6)
    }

    @Test func watchersLeaveRoomForRequests() throws {
        // 16 places, 2 reserved for requests; per user at most 4 connections, 2 of them watching.
        let (budget, _, _) = Self.budget()
        #expect(ConnectionBudget.reservedForRequests(16) == 2 && budget.maximumWatchers == 14)
        var seat = try budget.admit(uid: 1000).get()
        #expect(budget.startWatching(&seat) == nil && seat.watching)
        #expect(budget.startWatching(&seat) == nil, "watching twice takes nothing more")
        var second = try budget.admit(uid: 1000).get(), third = try budget.admit(uid: 1000).get()
        #expect(budget.startWatching(&second) == nil)
        #expect(budget.startWatching(&third) == .userWatchersFull(uid: 1000, limit: 2))
        #expect(!third.watching, "a refused seat is unchanged and still held")
        let prompt = try budget.admit(uid: 1000).get()
        #expect(prompt.uid == 1000, "its own prompt still finds room")
        budget.release(prompt)
        budget.release(third)

        // Seven users with two watchers each fill the 14 watcher places; an eighth user's
        // watch is refused for everyone's sake, its one-shot request is not.
        for uid in UInt32(2000)..<2006 {
            for _ in 0..<2 {
                var watcher = try budget.admit(uid: uid).get()
                #expect(budget.startWatching(&watcher) == nil)
            }
        }
        var late = try budget.admit(uid: 3000).get()
        #expect(budget.startWatching(&late) == .watchersFull(limit: 14))
        #expect(try budget.admit(uid: 3001).get().uid == 3001, "one-shot requests take the reserved places")
        #expect(budget.admit(uid: 3002) == .failure(.full(limit: 16)), "the cap holds")
        budget.release(late)
        #expect(try budget.admit(uid: 3002).get().uid == 3002)
    }

    @Test func aUserAtItsShareIsLoggedOncePerQuietPeriodAndOnceWhenBelowAgain() throws {
        let (budget, lines, clock) = Self.budget()
        let seats = try (0..<4).map { _ in try budget.admit(uid: 1000).get() }
        for _ in 0..<50 { _ = budget.admit(uid: 1000) }
        #expect(lines.text(.warning).count == 1, "one warning for a burst of refusals: \(lines.all)")
        #expect(lines.text(.warning).first?.contains("uid 1000 holds its share of the socket, 4 connections (BTCPRICED_USER_CONNECTIONS)") == true)
        budget.release(seats[0])
        #expect(lines.text(.notice) == ["uid 1000 is below its share of the socket again; 50 of its connections were refused"])

        // Bumping into the share again within the quiet period is not logged again; after it, it is.
        let again = try budget.admit(uid: 1000).get()
        _ = budget.admit(uid: 1000)
        #expect(lines.text(.warning).count == 1)
        budget.release(again)
        clock.advance(ConnectionBudget.quietPeriod + .seconds(1))
        _ = try budget.admit(uid: 1000).get()
        _ = budget.admit(uid: 1000)
        #expect(lines.text(.warning).count == 2, "\(lines.all)")
    }

    @Test func releasingTwiceNeverCountsBelowZero() throws {
        let (budget, _, _) = Self.budget(perUser: 2)
        let seat = try budget.admit(uid: 1000).get()
        budget.release(seat)
        budget.release(seat)
        #expect(budget.openConnections == 0, "the count never goes below zero")
        _ = try budget.admit(uid: 1000).get()
        _ = try budget.admit(uid: 1000).get()
        #expect(budget.admit(uid: 1000) == .failure(.userFull(uid: 1000, limit: 2)))
    }

    struct FakeStatus: StatusProvider {
        func statusReply() -> String { "{\"state\":\"fresh\"}\n" }
        func priceReply() -> String { "85866.185\n" }
        func sourcesReport() -> String { "{\"mode\":\"fallback\"}\n" }
        func historyReply(_ query: HistoryQuery) -> String { "history \(query)\n" }
        func metricsReply() -> String { "# metrics\n" }
    }

    @Test("every request line is routed to its answer", arguments: [
        ("price", RequestResponder.Answer.reply("85866.185\n")),
        ("status", .reply("{\"state\":\"fresh\"}\n")),
        ("sources", .reply("{\"mode\":\"fallback\"}\n")),
        ("metrics", .reply("# metrics\n")),
        ("ping", .reply("pong\n")),
        ("watch", .startStream),
    ])
    func routing(line: String, expected: RequestResponder.Answer) {
        let answer = RequestResponder.answer(Request.parse(Array(line.utf8)), status: FakeStatus(), version: "9.9.9")
        #expect(answer == expected, "\(line): \(answer)")
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
