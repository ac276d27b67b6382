import ClientKit
import NIOPosix
import ListenerKit
import PriceCore
import SocketServer
import Testing
import TestClocks

/// `watch` clients that stop reading: what they may cost and when they go. Real sockets; the
/// stall clock is a ManualClock, and each broadcast is awaited until every watcher was served.
@Suite("Socket server: slow and stuck watchers", .timeLimit(.minutes(3)))
struct WatchLimitsTests {
    @Test func watcherThatHasNotDrainedForTheStallTimeIsDropped() async throws {
        let clock = ManualClock()
        let running = try await RunningServer(limits: ServerLimits(watchStall: .seconds(30)), clock: clock)
        var client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("watch\n")
        #expect(try client.readLine() == #"{"state":"nodata"}"#)
        await waitFor(running.server) { running.server.watcherCount == 1 }

        try await running.server.broadcast("unread\n").get()
        clock.advance(by: .seconds(1))
        try await running.server.broadcast("one\n").get()  // "unread" still unread: undrained from here
        clock.advance(by: .seconds(29))
        try await running.server.broadcast("two\n").get()
        #expect(running.server.watcherCount == 1, "29 s undrained is inside the 30 s allowance")
        clock.advance(by: .seconds(1))
        try await running.server.broadcast("three\n").get()
        await waitFor(running.server) { running.server.watcherCount == 0 }

        var lines: [String] = []
        while let line = try client.readLine() { lines.append(line) }
        #expect(lines == ["unread", "one", "two"], "what was sent before the drop arrives, then the end of the stream")
        client.closeConnection()
        await running.server.shutdown()
    }

    @Test func slowReaderThatKeepsUpIsNeverDropped() async throws {
        let clock = ManualClock()
        let running = try await RunningServer(limits: ServerLimits(watchStall: .seconds(30)), clock: clock)
        var client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try client.send("watch\n")
        _ = try client.readLine()
        await waitFor(running.server) { running.server.watcherCount == 1 }
        for tick in 0..<12 {
            try await running.server.broadcast("tick \(tick)\n").get()
            clock.advance(by: .seconds(10))
            #expect(try client.readLine() == "tick \(tick)")
        }
        #expect(running.server.watcherCount == 1, "read every 10 s for 2 minutes: slow, but draining")
        client.closeConnection()
        await running.server.shutdown()
    }

    @Test func totalQueueCapDropsStuckWatchersAndKeepsTheReader() async throws {
        let limits = ServerLimits(watchBacklogLimit: 1024 * 1024, watchQueueLimit: 64 * 1024, watchSendBuffer: 4096)
        let running = try await RunningServer(limits: limits, clock: ManualClock())
        var stuck: [UnixSocketClient] = []
        for _ in 0..<3 {
            let client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
            try client.send("watch\n")
            stuck.append(client)
        }
        var reader = try UnixSocketClient(path: running.path, timeoutMilliseconds: 30_000)
        try reader.send("watch\n")
        _ = try reader.readLine()
        await waitFor(running.server) { running.server.watcherCount == 4 }

        let line = String(repeating: "x", count: 4095) + "\n"
        var highestQueued = 0
        for _ in 0..<100 where running.server.watcherCount > 1 {
            try await running.server.broadcast(line).get()
            highestQueued = max(highestQueued, running.server.watchQueuedBytes)
            #expect(try reader.readLine()?.count == 4095)
        }
        await waitFor(running.server) { running.server.watcherCount == 1 }
        // A watcher within its share is never dropped for the others, so each may add the line
        // being sent to it (seen: 128 bytes over, once in 60 loaded parallel runs).
        #expect(highestQueued <= limits.watchQueueLimit + 4 * line.utf8.count, "\(highestQueued) bytes held")
        try await running.server.broadcast("still here\n").get()
        #expect(try reader.readLine() == "still here")
        await waitFor(running.server) { running.server.watchQueuedBytes == 0 }
        stuck.forEach { $0.closeConnection() }
        reader.closeConnection()
        await running.server.shutdown()
    }

    /// Lines go straight to the socket while the daemon holds nothing for a watcher, and through
    /// NIO once the kernel's buffer is full: either way none is lost, cut or overtaken.
    @Test func aWatcherThatFallsBehindAndCatchesUpGetsEveryLineOnceInOrder() async throws {
        let limits = ServerLimits(watchBacklogLimit: 1024 * 1024, watchQueueLimit: 4 * 1024 * 1024, watchSendBuffer: 4096)
        let running = try await RunningServer(limits: limits, clock: ManualClock())
        // One deadline for the whole test, a liveness bound and no speed figure: in a full
        // parallel suite on two cores the 200 awaited broadcasts have taken over 30 s.
        var client = try UnixSocketClient(path: running.path, timeoutMilliseconds: 180_000)
        try client.send("watch\n")
        #expect(try client.readLine() == #"{"state":"nodata"}"#)
        await waitFor(running.server) { running.server.watcherCount == 1 }
        let line = { (number: Int) in "\(number) " + String(repeating: "x", count: 999) }
        for number in 0..<200 { try await running.server.broadcast(line(number) + "\n").get() }
        #expect(running.server.watchQueuedBytes > 0, "a 4 KB send buffer cannot hold 200 KB: the daemon holds the rest")
        for number in 0..<100 { #expect(try client.readLine() == line(number)) }
        for number in 200..<210 { try await running.server.broadcast(line(number) + "\n").get() }
        for number in 100..<210 { #expect(try client.readLine() == line(number)) }
        try await running.server.broadcast("caught up\n").get()
        #expect(try client.readLine() == "caught up")
        #expect(running.server.watchQueuedBytes == 0, "as of that broadcast, the daemon held nothing for it")
        try await running.server.broadcast("and straight to the socket again\n").get()
        #expect(try client.readLine() == "and straight to the socket again")
        #expect(running.server.watcherCount == 1)
        client.closeConnection()
        await running.server.shutdown()
    }
}
