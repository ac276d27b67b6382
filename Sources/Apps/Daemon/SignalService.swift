import Logging
import ServiceLifecycle
import Systemd
import UnixSignals

/// SIGTERM/SIGINT end the service (which shuts the group down gracefully); SIGHUP reloads.
/// The signal sequence is created, and so armed, before READY=1 is sent.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let reloader: Reloader
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sighup:
                await reloader.reload()
            default:
                logger.info("received \(signal), stopping")
                notifier.stopping(status: "stopping")
                return
            }
        }
    }
}
