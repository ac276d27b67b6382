import DaemonKit
import DaemonKitTesting
import Logging
import Synchronization
import Testing
import UnixSignals

/// Signals as systemd sends them, without a process: a SIGHUP is a reload between RELOADING=1
/// and READY=1 with the status after it, and SIGTERM or SIGINT end the service with STOPPING=1.
struct SignalServiceTests {
    func run(_ signals: [UnixSignal]) async throws -> (lifecycle: [String], reloads: Int) {
        let notifier = RecordingNotifier()
        let reloads = Mutex(0)
        let (stream, continuation) = AsyncStream<UnixSignal>.makeStream()
        for signal in signals { continuation.yield(signal) }
        continuation.finish()
        let service = SignalService(signals: stream, notifier: notifier, logger: Logger(label: "test")) {
            let count = reloads.withLock { count in count += 1; return count }
            return "reload \(count) done"
        }
        try await service.run()
        return (notifier.lifecycle.withLock { $0 }, reloads.withLock { $0 })
    }

    @Test func aSIGHUPReloadsBetweenRELOADINGAndREADY() async throws {
        let (lifecycle, reloads) = try await run([.sighup, .sighup, .sigterm])
        #expect(reloads == 2)
        #expect(lifecycle == ["RELOADING=1 reloading configuration", "READY=1 reload 1 done",
                              "RELOADING=1 reloading configuration", "READY=1 reload 2 done", "STOPPING=1 stopping"], "\(lifecycle)")
    }

    @Test(arguments: [UnixSignal.sigterm, .sigint])
    func aStopSignalEndsTheServiceAndWhatFollowsIsNotHandled(_ stop: UnixSignal) async throws {
        let (lifecycle, reloads) = try await run([stop, .sighup])
        #expect(lifecycle == ["STOPPING=1 stopping"] && reloads == 0, "\(lifecycle), \(reloads) reloads")
    }
}
