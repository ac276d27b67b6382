// Two `watch` benchmarks on the real socket server.
// - previous|current WATCHERS SECONDS SOCKET_DIR: memory held for watchers that never read:
//   RssAnon of this process while N stuck watchers are sent one status line a (simulated)
//   second; `previous` runs the server with 0.1's limits (kernel default send buffer, no stall
//   limit, no total cap), `current` with today's defaults.
// - serve SECONDS INTERVAL_MS SOCKET_DIR: a server that broadcasts a new status line every
//   INTERVAL_MS for SECONDS from its own event loop, as the daemon does, for
//   Benchmarks/loadgen/fanout.c to watch; prints RssAnon as it goes.
import Glibc
import NIOCore
import NIOPosix
import ListenerKit
import Logging
import PriceCore
import SocketServer
import TestClocks
import WireProtocol

/// The server logs as the daemon's does: to stderr, under its label.
let benchLogger = Logger(label: "btcpriced.socket")

struct SampleStatus: StatusProvider {
    let line: String
    func statusReply() -> String { line }
    func priceReply() -> String { "114459.80\n" }
    func sourcesReport() -> String { "{}\n" }
    func historyReply(_ query: HistoryQuery) -> String { HistoryReply(range: query.range, points: []).line }
    func dailyReply(_ query: DailyQuery) -> String { DailyReply(currency: "USD", days: []).line }
    func metricsReply() -> String { "" }
    func status() -> StatusMessage {
        StatusMessage(price: "114459.80", symbol: "BTCUSDT", source: "binance", timestamp: nil, ageMilliseconds: 0, state: .fresh, lastError: nil, version: "bench")
    }
    func sources() -> SourcesReport { SourcesReport(mode: "fallback", entries: []) }
    func history(_ query: HistoryQuery) -> HistoryReply { HistoryReply(range: query.range, points: []) }
    func daily(_ query: DailyQuery) -> DailyReply { DailyReply(currency: "USD", days: []) }
    func price(at query: PriceAtQuery) -> PriceAtReply { PriceAtReply(at: query.seconds, currency: "USD", missing: .gap, reason: "the benchmark keeps no history") }
    var servedCurrencies: [String] { ["USD"] }
    func replies(for currency: String) -> (any StatusProvider)? { currency == "USD" ? self : nil }
}

func rssAnonKiB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 256)
    while fgets(&buffer, Int32(buffer.count), file) != nil {
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if line.hasPrefix("RssAnon:") { return Int(line.split(separator: " ")[1]) ?? -1 }
    }
    return -1
}

func connectWatcher(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    precondition(UnixSocketAddress.connect(fd, to: path) == 0, "connect failed: errno \(errno)")
    _ = "watch\n".withCString { send(fd, $0, 6, 0) }
    return fd
}

let arguments = CommandLine.arguments
var files = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
files.rlim_cur = files.rlim_max
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
// A status line as long as the daemon's with five sources (about 700 bytes).
func statusLine(_ serial: Int) -> String {
    #"{"price":"114459.80","currency":"USDT","source":"binance","state":"fresh","serial":\#(serial)"#
        + String(repeating: #","x":"padding to the length of a real status line""#, count: 13) + "}\n"
}

/// The benchmarks' 1,000 watchers all come from this one user: room for them beside the share
/// that no single user may take.
func roomForOneUser(_ limits: ServerLimits) -> ServerLimits {
    var limits = limits
    limits.maximumConnections = 1280
    limits.connectionsPerUser = 1120
    limits.watchersPerUser = 1100
    return limits
}

/// One loop, as the daemon runs its server (DaemonRuntime): not NIO's singleton, one per core.
let daemonLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

/// The serve benchmark's count of lines and its memory samples, touched only on the server's loop.
final class ServeTally: @unchecked Sendable {
    var serial = 0
    var samples: [Int] = []
}

if arguments.count == 5, arguments[1] == "serve", let seconds = Int(arguments[2]), let interval = Int(arguments[3]) {
    let server = try await QuoteServer.start(listener: .path(arguments[4] + "/watch-fanout.sock"), status: SampleStatus(line: statusLine(0)),
                                             version: "bench", limits: roomForOneUser(ServerLimits()), logger: benchLogger, group: daemonLoop)
    // Each line is broadcast from the server's own loop, as the daemon's are (a trade is read
    // there and its line sent at once): no thread of the benchmark's wakes for it or hands it over.
    let loop = daemonLoop.next()
    let tally = ServeTally()
    let start = NIODeadline.now(), end = start + .seconds(Int64(seconds))
    let finished = loop.makePromise(of: Void.self)
    @Sendable func broadcastNext() {
        tally.serial += 1
        server.broadcast(statusLine(tally.serial))
        if tally.serial % (10_000 / interval) == 0 { tally.samples.append(rssAnonKiB()) }
        let next = start + .milliseconds(Int64(tally.serial * interval))
        guard next < end else { return finished.succeed(()) }
        loop.scheduleTask(deadline: next) { broadcastNext() }
    }
    loop.execute { broadcastNext() }
    try await finished.futureResult.get()
    let (serial, samples) = try await loop.submit { (tally.serial, tally.samples) }.get()
    print("serve: \(serial) lines to \(server.watcherCount) watchers every \(interval) ms; RssAnon every 10 s (KiB): \(samples.map(String.init).joined(separator: " "))")
    await server.shutdown()
    exit(0)
}
guard arguments.count == 5, let watchers = Int(arguments[2]), let seconds = Int(arguments[3]) else {
    print("usage: watch-bench previous|current WATCHERS SECONDS SOCKET_DIR | watch-bench serve SECONDS INTERVAL_MS SOCKET_DIR")
    exit(64)
}
let limits = roomForOneUser(arguments[1] == "previous"
    ? ServerLimits(watchStall: .seconds(1_000_000), watchQueueLimit: .max, watchSendBuffer: nil)
    : ServerLimits())
let status = statusLine(0)
let clock = ManualClock()
let path = arguments[4] + "/watch-bench.sock"
let server = try await QuoteServer.start(listener: .path(path), status: SampleStatus(line: status), version: "bench",
                                         limits: limits, clock: clock, logger: benchLogger, group: MultiThreadedEventLoopGroup.singleton)
let baseline = rssAnonKiB()
let clients = (0..<watchers).map { _ in connectWatcher(path) }
while server.watcherCount < watchers { try await Task.sleep(for: .milliseconds(10)) }
let connected = rssAnonKiB()
var peak = connected
var droppedAt: Int?
for second in 1...seconds {
    try await server.broadcast(status).get()
    clock.advance(by: .seconds(1))
    if second % 10 == 0 { peak = max(peak, rssAnonKiB()) }
    if droppedAt == nil, server.watcherCount == 0 { droppedAt = second }
}
try await Task.sleep(for: .milliseconds(200))
print("\(arguments[1]): \(watchers) stuck watchers, \(seconds) lines of \(status.utf8.count) B at a simulated 1 Hz:"
      + " RssAnon \(baseline) KiB before connecting, \(connected) KiB connected, peak \(peak) KiB (+\((peak - baseline) / 1024) MiB),"
      + " \(rssAnonKiB()) KiB at the end; all dropped after \(droppedAt.map { "\($0) s" } ?? "never"),"
      + " \(server.watcherCount) left, \(server.watchQueuedBytes) B still queued")
clients.forEach { close($0) }
await server.shutdown()
