import ClientKit
import Foundation
import MetricsExport
import NIOPosix
import ListenerKit
import Logging
import PriceCore
import SocketServer
import Synchronization
import Testing
import TestClocks
import WireProtocol

/// A status provider the test controls.
final class FixedStatus: StatusProvider {
    struct Replies { var status: String; var price: String; var metrics = "# TYPE x counter\nx 1\n" }
    let line = Mutex(Replies(status: #"{"state":"nodata"}"# + "\n", price: #"{"error":"nodata","message":"no quote yet"}"# + "\n"))
    func statusReply() -> String { line.withLock { $0.status } }
    func priceReply() -> String { line.withLock { $0.price } }
    func sourcesReport() -> String { #"{"mode":"fallback","sources":[]}"# + "\n" }
    func historyReply(_ query: HistoryQuery) -> String { HistoryReply(range: query.range, points: [.init(time: "2026-11-21T16:00:00Z", close: nil)]).line }
    func dailyReply(_ query: DailyQuery) -> String {
        DailyReply(currency: "USD", days: [.init(date: query.since ?? "2026-11-20", open: "1", high: "2", low: "1", close: "2")]).line
    }
    func metricsReply() -> String { line.withLock { $0.metrics } }
}

/// Serves on a real Unix socket in a temp directory.
struct RunningServer: ~Copyable {
    let directory = TemporaryDirectory()
    let status = FixedStatus()
    let server: QuoteServer
    var path: String { directory.path + "/btcpriced.sock" }

    /// Its own registry, so each test reads only its own counts.
    let metrics = PrometheusExporter()

    init(limits: ServerLimits = ServerLimits(), clock: some Clock<Duration> = ContinuousClock(), audience: WatchAudience = WatchAudience()) async throws {
        let path = directory.path + "/btcpriced.sock"
        server = try await QuoteServer.start(listener: .path(path), status: status, version: "9.9.9", limits: limits,
                                             clock: clock, metrics: metrics.factory, audience: audience, logger: logger,
                                             group: MultiThreadedEventLoopGroup.singleton)
    }

    func ask(_ request: String, timeoutMilliseconds: Int = 30_000) throws -> [String] {
        var client = try UnixSocketClient(path: path, timeoutMilliseconds: timeoutMilliseconds)
        defer { client.closeConnection() }
        try client.send(request)
        var lines: [String] = []
        while let line = try client.readLine() { lines.append(line) }
        return lines
    }
}

/// The servers under test log as the daemon's socket does.
private let logger = Logger(label: "btcpriced.socket")

@Suite("Socket server: protocol over a real Unix socket", .timeLimit(.minutes(2)))
struct SocketServerTests {
    @Test func answersEachRequestAndCloses() async throws {
        let running = try await RunningServer()
        running.status.line.withLock { $0 = .init(status: #"{"price":"68901.23","state":"fresh"}"# + "\n", price: "68901.23\n") }
        #expect(try running.ask("ping\n") == ["pong"])
        #expect(try running.ask("version\r\n") == [#"{"version":"9.9.9","protocol":2}"#])
        #expect(try running.ask("status\n") == [#"{"price":"68901.23","state":"fresh"}"#])
        #expect(try running.ask("price\n") == ["68901.23"])
        #expect(try running.ask("metrics\n") == ["# TYPE x counter", "x 1"], "the metrics reply is many lines, then close")
        _ = try running.ask("bogus\n")
        let counts = running.metrics.exposition()
        for (request, count) in [("ping", 1), ("version", 1), ("status", 1), ("price", 1), ("metrics", 1), ("invalid", 1), ("watch", 0)] {
            #expect(counts.contains("btcpriced_socket_requests_total{request=\"\(request)\"} \(count)\n"), "\(request): \(counts)")
        }
        await running.server.shutdown()
    }

    @Test func priceWithoutDataIsAnErrorObject() async throws {
        let running = try await RunningServer()
        #expect(try running.ask("price\n").first?.hasPrefix(#"{"error":"nodata","message":"#) == true)
        await running.server.shutdown()
    }

    @Test func socketIsWorldReadableAndRemovedOnShutdown() async throws {
        let running = try await RunningServer()
        let mode = try FileManager.default.attributesOfItem(atPath: running.path)[.posixPermissions] as? Int
        #expect(mode == 0o666)
        await running.server.shutdown()
        #expect(!FileManager.default.fileExists(atPath: running.path))
    }

    /// A second daemon (or an operator) that took the path meanwhile keeps its file.
    @Test func shutdownLeavesAPathThatNoLongerHoldsOurSocket() async throws {
        let running = try await RunningServer()
        try FileManager.default.moveItem(atPath: running.path, toPath: running.path + ".moved")
        let replacement = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(replacement) }
        #expect(UnixSocketAddress.bind(replacement, to: running.path) == 0)
        await running.server.shutdown()
        await running.server.shutdown()
        #expect(FileManager.default.fileExists(atPath: running.path), "someone else's socket was unlinked")
        #expect(FileManager.default.fileExists(atPath: running.path + ".moved"), "shutdown follows the path, not the file")
    }

    @Test("junk gets a bad-request line and the server keeps serving", arguments: [
        "hello\n", "STATUS\n", String(repeating: "A", count: 1000), "\u{FF}\u{FE}\n", "\n",
    ])
    func junk(request: String) async throws {
        let running = try await RunningServer()
        let reply = try running.ask(request)
        #expect(reply.count == 1)
        #expect(reply.first?.hasPrefix(#"{"error":"bad-request""#) == true)
        #expect(try running.ask("ping\n") == ["pong"])
        await running.server.shutdown()
    }

    /// The front door writes what the kernel takes at once and hands the rest to NIO.
    @Test func aReplyLargerThanTheSocketBufferArrivesWhole() async throws {
        let running = try await RunningServer()
        let lines = (0..<40_000).map { "x_total{n=\"\($0)\"} \($0)" }
        running.status.line.withLock { $0.metrics = lines.joined(separator: "\n") + "\n" }
        #expect(try running.ask("metrics\n", timeoutMilliseconds: 20_000) == lines, "about 1 MB, far over a Unix socket's send buffer")
        await waitFor(running.server) { running.server.openConnections == 0 }
        #expect(try running.ask("ping\n") == ["pong"])
        await running.server.shutdown()
    }

    /// The door reads a request with one `recv`; what a client sent beyond what that read took
    /// is drained before the close, or the close would reset the connection under the reply.
    @Test("bytes after the request line still end in a clean close", arguments: [16, 600, 5000])
    func bytesAfterTheRequest(extra: Int) async throws {
        let running = try await RunningServer()
        #expect(try running.ask("ping\n" + String(repeating: "x", count: extra)) == ["pong"], "ping then \(extra) more bytes")
        await running.server.shutdown()
    }

    @Test func requestWithoutNewlineIsServedAtEndOfInput() async throws {
        let running = try await RunningServer()
        let client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("ping")
        shutdownWrite(of: client)
        var reader = client
        #expect(try reader.readLine() == "pong")
        client.closeConnection()
        await running.server.shutdown()
    }

    @Test func silentClientIsClosedAfterTheRequestTimeout() async throws {
        let running = try await RunningServer(limits: ServerLimits(requestTimeout: .milliseconds(200)))
        var client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("sta")
        // Only the server's 200 ms request timeout sends this line; the client would give up at 2 s.
        let line = try client.readLine()
        #expect(line?.contains("no complete request line") == true)
        #expect(try client.readLine() == nil)
        client.closeConnection()
        await running.server.shutdown()
    }

    /// The deadline is the injected clock's: the loop looks at its deadlines whenever it wakes,
    /// here for another client's request.
    @Test(.timeLimit(.minutes(1))) func theRequestDeadlineRunsOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let running = try await RunningServer(limits: ServerLimits(requestTimeout: .seconds(5)), clock: clock)
        var silent = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try silent.send("sta")
        await waitFor(running.server) { running.server.openConnections == 1 }
        func ping() throws {
            var other = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
            try other.send("ping\n")
            #expect(try other.readLine() == "pong")
            other.closeConnection()
        }
        clock.advance(by: .milliseconds(4999))
        try ping()
        await waitFor(running.server) { running.server.openConnections == 1 }
        clock.advance(by: .milliseconds(1))
        try ping()
        let line = try silent.readLine()
        #expect(line?.contains("no complete request line within 5s") == true, "got \(line ?? "nothing")")
        silent.closeConnection()
        await running.server.shutdown()
    }

    /// One UID (this test's) may hold only its share, even of a tiny cap: 8 places, one of
    /// them reserved for others, so 7. Two real UIDs are in FairnessEndToEndTests.
    @Test func connectionsOverAUsersShareAreTurnedAwayWithTheReason() async throws {
        // A clock that stands still: the held connections send nothing, and on a busy machine
        // the 5 s request limit could close some before the seventh is in.
        let running = try await RunningServer(limits: ServerLimits(maximumConnections: 8, connectionsPerUser: 100), clock: ManualClock())
        let held = try (0..<7).map { _ in try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000) }
        await waitFor(running.server) { running.server.openConnections == 7 }
        let reply = try running.ask("ping\n")
        #expect(reply.first?.hasPrefix(#"{"error":"busy""#) == true, "\(reply)")
        #expect(reply.first?.contains("uid \(getuid()) already holds 7 connections") == true, "\(reply)")
        let exposition = running.metrics.exposition()
        #expect(exposition.contains(#"btcpriced_socket_rejected_total{reason="per_user_limit"} 1"#), "\(exposition)")
        held.forEach { $0.closeConnection() }
        await waitFor(running.server) { running.server.openConnections == 0 }
        #expect(try running.ask("ping\n") == ["pong"])
        await running.server.shutdown()
    }

    @Test func watchStreamsBroadcastsAndEndsAtShutdown() async throws {
        let running = try await RunningServer()
        running.status.line.withLock { $0.status = "first\n" }
        var client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("watch\n")
        #expect(try client.readLine() == "first")
        await waitFor(running.server) { running.server.watcherCount == 1 }
        running.server.broadcast("second\n")
        running.server.broadcast("third\n")
        #expect(try client.readLine() == "second")
        #expect(try client.readLine() == "third")
        await running.server.shutdown()
        #expect(try client.readLine() == nil)
        client.closeConnection()
    }

    /// The audience the stream's reader and the publisher load is the listeners' own count:
    /// a watcher joining, leaving, and the streams shutdown ends each move it.
    @Test func theAudienceFollowsTheWatchersAsTheyComeAndGo() async throws {
        let audience = WatchAudience()
        let running = try await RunningServer(audience: audience)
        var first = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try first.send("watch\n")
        _ = try first.readLine()
        var second = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try second.send("watch\n")
        _ = try second.readLine()
        await waitFor(running.server) { audience.count == 2 }
        #expect(audience.count == 2 && audience.isWatched, "two watchers: \(audience.count)")
        first.closeConnection()
        await waitFor(running.server) { audience.count == 1 }
        #expect(audience.count == 1, "one left: \(audience.count)")
        await running.server.shutdown()
        #expect(audience.count == 0 && !audience.isWatched, "the shutdown ended the last: \(audience.count)")
        second.closeConnection()
    }

    @Test func watcherThatStopsReadingIsDropped() async throws {
        let running = try await RunningServer(limits: ServerLimits(watchBacklogLimit: 16 * 1024))
        let client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("watch\n")
        await waitFor(running.server) { running.server.watcherCount == 1 }
        let line = String(repeating: "x", count: 4096) + "\n"
        // Never read: the kernel buffers fill, then our bounded queue, then the server gives up.
        // Each broadcast is awaited until served (written or dropped): the test waits on the
        // server, never on the clock.
        for _ in 0..<2000 where running.server.watcherCount > 0 {
            try await running.server.broadcast(line).get()
        }
        await waitFor(running.server) { running.server.watcherCount == 0 }
        #expect(try running.ask("ping\n") == ["pong"])
        client.closeConnection()
        await running.server.shutdown()
    }

    @Test func refusesToStealALiveSocketButReplacesAStaleOne() async throws {
        let running = try await RunningServer()
        await #expect { _ = try await QuoteServer.start(listener: .path(running.path), status: running.status, version: "x",
                                                        logger: logger, group: MultiThreadedEventLoopGroup.singleton) } throws: { error in
            "\(error)".contains("another btcpriced is already listening")
        }
        // A crashed daemon leaves the socket file behind with no listener.
        let stale = running.directory.path + "/stale.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress.bind(fd, to: stale)
        close(fd)
        #expect(FileManager.default.fileExists(atPath: stale))
        let replacement = try await QuoteServer.start(listener: .path(stale), status: running.status, version: "x", logger: logger,
                                                      group: MultiThreadedEventLoopGroup.singleton)
        await replacement.shutdown()
        _ = FileManager.default.createFile(atPath: running.directory.path + "/regular", contents: nil)
        await #expect { _ = try await QuoteServer.start(listener: .path(running.directory.path + "/regular"), status: running.status, version: "x",
                                                        logger: logger, group: MultiThreadedEventLoopGroup.singleton) } throws: { error in
            "\(error)".contains("is not a socket")
        }
        await running.server.shutdown()
    }
}

func shutdownWrite(of client: UnixSocketClient) {
    client.shutdownWriting()
}

/// Waits for the server's counts to reach a state: the server wakes the wait at each change,
/// and the suite's time limit bounds a broken run.
func waitFor(_ server: QuoteServer, _ condition: () -> Bool) async {
    await server.until(condition)
    #expect(condition(), "the counts never got there: \(server.openConnections) connections, \(server.watcherCount) watchers, \(server.watchQueuedBytes) bytes held")
}
