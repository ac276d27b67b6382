import Logging
import PriceCore
import ServiceLifecycle

/// Tells the door when time passes in a way that matters, without polling: it sleeps until the
/// moment the current quote crosses `staleAfter`, and then, while there is no fresh quote, about
/// once a second, so systemd's status shows the growing age. It judges a quote only once the
/// stream had its chance to read what it holds (`readLag` after the limit), so a trade waiting
/// in the kernel as the age crosses the limit never makes a stale line.
public struct FreshnessMonitor<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let intake: PriceIntake<C>
    let logger: Logger
    /// How late a change may be noticed: a clock that shares wakeups ends the sleep with others.
    public var timerTolerance: Duration?
    /// The longest a streamed trade may wait unread.
    public var readLag: Duration = .zero

    public init(intake: PriceIntake<C>, logger: Logger) {
        self.intake = intake
        self.logger = logger
    }

    public func run() async throws {
        let intake = self.intake, board = intake.board, logger = self.logger, tolerance = timerTolerance, lag = readLag
        await cancelWhenGracefulShutdown {
            var lastState = board.freshness().state
            while !Task.isCancelled {
                // Capped, so a quote stamped far ahead (a wrong clock) cannot put the monitor to sleep for good.
                let wait = board.timeUntilStale().map { min($0, board.staleLimit) + lag } ?? .seconds(1)
                do { try await board.clock.sleep(for: wait, tolerance: tolerance) } catch { return }
                intake.timePassed()
                let state = board.freshness().state
                if state != lastState, state == .stale {
                    let snapshot = board.current
                    logger.warning("the quote is stale: older than \(snapshot.staleLimit.humanReadable)",
                                   metadata: ["error": "\(snapshot.problems ?? "no recent quote")", "message_id": "\(MessageID.stale)"])
                }
                lastState = state
            }
        }
    }
}
