import Logging
import PriceCore
import ServiceLifecycle

/// Tells watchers and systemd when the quote turns stale, without polling: it sleeps until
/// the moment the current quote crosses `staleAfter`.
public struct FreshnessMonitor<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let intake: PriceIntake<C>
    let health: DaemonHealth<C>
    let logger: Logger

    public init(intake: PriceIntake<C>, health: DaemonHealth<C>, logger: Logger) {
        self.intake = intake
        self.health = health
        self.logger = logger
    }

    public func run() async throws {
        let intake = self.intake, board = intake.board, health = self.health, logger = self.logger
        await cancelWhenGracefulShutdown {
            var lastState = board.freshness().state
            while !Task.isCancelled {
                let wait = board.timeUntilStale()
                // Capped, so a quote stamped far ahead (a wrong clock) cannot put the monitor to sleep for good.
                do { try await board.clock.sleep(for: min(wait ?? .seconds(1), board.current.staleLimit)) } catch { return }
                let state = board.freshness().state
                if state != lastState {
                    intake.timePassed()
                    if state == .stale {
                        let snapshot = board.current
                        logger.warning("the quote is stale: older than \(snapshot.staleLimit.humanReadable)",
                                       metadata: ["error": "\(snapshot.problems ?? "no recent quote")", "message_id": "\(MessageID.stale)"])
                    }
                    lastState = state
                }
                if state != .fresh { health.reportStatus(board.statusSummary()) }
            }
        }
    }
}
