import ClientKit
import FakeExchange
import Foundation
import Testing

/// Locates the built executables next to the test bundle (or in $BTCPRICED_BIN_DIR).
enum Binaries {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["BTCPRICED_BIN_DIR"] { return dir }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }()
    static var daemon: String { directory + "/btcpriced" }
    static var ctl: String { directory + "/btcctl" }
}

struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs a command to completion with a hard time limit, on a thread of its own (see `offPool`).
func runCommand(_ path: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(5)) async throws -> CommandResult {
    try await offPool { try runCommandBlocking(path, arguments, environment: environment, timeout: timeout) }
}

private func runCommandBlocking(_ path: String, _ arguments: [String], environment: [String: String], timeout: Duration) throws -> CommandResult {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    // Files, not pipes: the output is read once the child has ended, whatever its size.
    let base = NSTemporaryDirectory() + "btcpriced-run-\(UUID().uuidString.prefix(8))"
    process.outputPath = base + ".out"
    process.errorPath = base + ".err"
    defer { for file in [base + ".out", base + ".err"] { try? FileManager.default.removeItem(atPath: file) } }
    try process.run()
    let deadline = ContinuousClock.now + timeout
    while process.isRunning && ContinuousClock.now < deadline { usleep(2000) }
    if process.isRunning {
        process.terminate()
        // A child may inherit SIGTERM ignored from the test process; it does not get to hang the run.
        let grace = ContinuousClock.now + .seconds(1)
        while process.isRunning && ContinuousClock.now < grace { usleep(2000) }
        process.signal(SIGKILL)
    }
    process.waitUntilExit()
    func read(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
    return CommandResult(status: process.terminationStatus, stdout: read(base + ".out"), stderr: read(base + ".err"))
}

/// A btcpriced process with its own temp state dir and socket, pointed at a fake exchange.
final class DaemonProcess {
    let directory: String
    let process = ChildProcess()
    let logFile: String
    var socket: String { directory + "/btcpriced.sock" }
    var stateDirectory: String { directory + "/state" }
    var quoteFile: String { stateDirectory + "/quote.json" }

    /// `launcher` runs the daemon through another program, such as `ip netns exec NAME`.
    init(exchangeURL: String, directory: String? = nil, settings: [String: String] = [:], configPath: String = "/dev/null",
         launcher: [String] = []) throws {
        self.directory = directory ?? NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
        logFile = self.directory + "/daemon.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: launcher.first ?? Binaries.daemon)
        process.arguments = launcher.dropFirst() + (launcher.isEmpty ? [] : [Binaries.daemon])
            + ["--config", configPath, "--socket", socket, "--state-dir", stateDirectory]
        // Nor the runner's proxy variables: a test that wants a proxy names it.
        let proxyVariables: Set = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BTCPRICED_") && !proxyVariables.contains($0.key) }
        // Every venue points at the fake: a test never reaches a real exchange.
        for venue in Market.allCases { environment["BTCPRICED_\(venue.rawValue.uppercased().replacingOccurrences(of: "-", with: "_"))_URL"] = exchangeURL }
        // The streams too; off unless a test turns them on, so the polling tests poll.
        let ws = "ws" + exchangeURL.dropFirst("http".count)
        environment["BTCPRICED_BINANCE_STREAM_URL"] = ws
        environment["BTCPRICED_COINBASE_STREAM_URL"] = ws + "/"
        environment["BTCPRICED_KRAKEN_STREAM_URL"] = ws + "/v2"
        environment["BTCPRICED_STREAM"] = "off"
        // No candles either, unless a test turns the backfill on: the others count the fake's
        // price requests and read a history that starts with the test.
        environment["BTCPRICED_BACKFILL"] = "off"
        // The tests watch quote.json change with each quote.
        environment["BTCPRICED_PERSIST_INTERVAL"] = "0"
        environment.merge(settings) { $1 }
        process.environment = environment
        process.outputPath = logFile
    }

    /// Starts the daemon and waits until its socket answers.
    func start() async throws {
        try process.run()
        do {
            try await until("the socket answers") { (try? await runCommand(Binaries.ctl, ["--socket", socket, "ping"]).status) == 0 }
        } catch {
            Issue.record("the daemon's log so far:\n\(log)\nping: \(String(describing: try? await runCommand(Binaries.ctl, ["--socket", socket, "ping"])))")
            throw error
        }
    }

    func ctl(_ arguments: String...) async throws -> CommandResult {
        try await runCommand(Binaries.ctl, ["--socket", socket] + arguments)
    }

    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL after 10 s: a daemon that ignores a stop does not hang the run.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline { usleep(2000) }
        process.signal(SIGKILL)
        process.waitUntilExit()
    }

    func removeFiles() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Polls until the condition holds, failing the test (with a description, and `context` such as
/// the daemon's log) after a time limit. The limit only bounds a broken run: timings are tested
/// on injected clocks. A fresh CI clone once stalled the whole test process for about 10 s, so
/// three checks with 15 s failed at once while their daemons were fine: no check gets less than
/// a minute.
func until(_ what: String, timeout: Duration = .seconds(60), context: () -> String = { "" },
           _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            let context = context()
            Issue.record("timed out waiting for \(what)\(context.isEmpty ? "" : "\n\(context)")")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Runs blocking work (a child's exit, a socket read, a btcctl run) on a thread of its own.
/// Swift's cooperative pool has one thread per core; a test that blocks one of them for seconds
/// starves every other test running in parallel.
func offPool<T>(_ work: @escaping () throws -> T) async throws -> T {
    let box = Unchecked(work)
    let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Unchecked<T>, any Error>) in
        Thread { continuation.resume(with: Result { Unchecked(try box.value()) }) }.start()
    }
    return result.value
}

/// Hands a value to the one thread that `offPool` starts while the caller waits for it, so the
/// value is never used from two places at once.
final class Unchecked<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension UnixSocketClient {
    /// `readLine` without holding a cooperative thread while the daemon takes its time.
    mutating func nextLine() async throws -> String? {
        let box = Unchecked(self)
        defer { self = box.value }
        return try await offPool { try box.value.readLine() }
    }
}

extension SpawnedProcess {
    /// Waits for the exit without holding a cooperative thread; nil if it is still running.
    func exitStatus(within timeout: Duration = .seconds(30)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return exitStatus
    }
}



/// A new empty directory under the temporary directory, for one test's files.
func scratchDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}
