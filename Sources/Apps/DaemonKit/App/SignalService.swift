import Logging
import PriceCore
import ServiceLifecycle
import UnixSignals

/// SIGTERM and SIGINT end the daemon (its group then shuts down gracefully); SIGHUP reloads,
/// between RELOADING=1 and READY=1, and READY=1 comes even when the reload fails, or
/// `systemctl reload` would hang. Make the signal sequence, which arms it, before READY=1.
public struct SignalService<Signals: AsyncSequence & Sendable>: Service where Signals.Element == UnixSignal {
    let signals: Signals
    let notifier: any HealthNotifier
    let logger: Logger
    /// Applies the configuration anew; returns the status READY=1 carries.
    let reload: @Sendable () async -> String

    public init(signals: Signals, notifier: any HealthNotifier, logger: Logger, reload: @escaping @Sendable () async -> String) {
        self.signals = signals
        self.notifier = notifier
        self.logger = logger
        self.reload = reload
    }

    public func run() async throws {
        for try await signal in signals.cancelOnGracefulShutdown() {
            if signal == .sighup {
                notifier.reloading(status: "reloading configuration")
                notifier.ready(status: await reload())
            } else {
                logger.info("received \(signal), stopping")
                notifier.stopping(status: "stopping")
                return
            }
        }
    }
}
