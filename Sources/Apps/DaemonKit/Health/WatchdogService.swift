import ServiceLifecycle

/// Feeds systemd's watchdog at half its interval, but only while the fetch loop makes progress.
public struct WatchdogService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let health: DaemonHealth<C>

    public init(health: DaemonHealth<C>) { self.health = health }

    public func run() async throws {
        guard let period = health.watchdogPingPeriod else {
            try? await gracefulShutdown()
            return
        }
        let health = self.health
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                health.pingWatchdogIfHealthy()
                do { try await health.clock.sleep(for: period) } catch { return }
            }
        }
    }
}
