import Foundation

/// What the harness needs of Foundation's `Process`, spawned with posix_spawn and reaped with
/// waitpid. Foundation learns of a child's exit when a socket the child holds closes; its
/// children inherit the test process's other descriptors (a concurrently spawned child's
/// socket among them), so a child that holds another's socket keeps that one's exit unseen,
/// and `waitUntilExit` spun for good on a zombie in a full `swift test`. Here the child gets
/// stdio and nothing else, and its exit is its own waitpid.
final class ChildProcess: @unchecked Sendable {
    enum TerminationReason { case exit, uncaughtSignal }

    var executableURL: URL?
    var arguments: [String]?
    var environment: [String: String]?
    /// Where the child's stdout goes (its stderr too, unless `errorPath` is set); /dev/null when nil.
    var outputPath: String?
    var errorPath: String?

    // Written by `run`, then by whichever caller reaps; tests use one process from one task.
    private let state = NSLock()
    private var pid: pid_t = 0
    private var status: Int32?

    var processIdentifier: Int32 { state.withLock { pid } }

    func run() throws {
        guard let path = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        _ = childProcessCloseFrom(&actions, 3)
        let argv = ([path] + (arguments ?? [])).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        state.withLock { pid = child }
    }

    /// Reaps the child if it has ended; true while it runs.
    var isRunning: Bool {
        state.withLock {
            guard pid > 0, status == nil else { return false }
            var raw: Int32 = 0
            switch waitpid(pid, &raw, WNOHANG) {
            case pid:
                status = raw
                return false
            // Reaped by `waitUntilExit` on another thread, which records its status.
            case -1 where errno == ECHILD: return false
            default: return true
            }
        }
    }

    func terminate() { signal(SIGTERM) }

    func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }

    /// Blocks in waitpid until the child has ended (call it off the cooperative pool, see `offPool`).
    func waitUntilExit() {
        let child = state.withLock { status == nil ? pid : 0 }
        guard child > 0 else { return }
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(child, &raw, 0) } while result == -1 && errno == EINTR
        // Otherwise (ECHILD) `isRunning` reaped it first and recorded its status under the lock.
        if result == child { state.withLock { status = raw } }
    }

    private var raw: Int32 { state.withLock { status ?? 0 } }
    var terminationReason: TerminationReason { raw & 0x7F == 0 ? .exit : .uncaughtSignal }
    /// The exit status, or the signal's number for a child a signal ended, as Foundation has it.
    var terminationStatus: Int32 { raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F }
}

@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func childProcessCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
