import Foundation

/// A child started with posix_spawn and reaped with waitpid, inheriting only stdio.
/// Foundation's Process assumes its child never execs again; systemd-socket-activate and `sh -c exec` do, which wedges
/// Foundation's child monitor and with it every later Process in the test run.
final class SpawnedProcess {
    let pid: pid_t
    private(set) var exitStatus: Int32?

    init(_ arguments: [String], environment: [String: String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // NIO accepts connections without CLOEXEC; a child that inherited one would hold an
        // in-process test's connection open after the server closed it.
        _ = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return false
        }
        return true
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits up to `timeout` for the exit; returns the exit status (128+N for signal N).
    @discardableResult
    func wait(timeout: Duration = .seconds(5)) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < deadline { usleep(2000) }
        return exitStatus
    }

    func stop() {
        guard isRunning else { return }
        signal(SIGTERM)
        if wait() == nil {
            signal(SIGKILL)
            wait()
        }
    }
}

/// glibc 2.34+ (Debian 12 has 2.36); the Glibc module does not export it.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func posix_spawn_file_actions_addclosefrom_np(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
