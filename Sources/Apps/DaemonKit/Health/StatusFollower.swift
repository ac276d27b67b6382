import PriceCore

/// systemd's `STATUS=` kept up with the board: a change of what watchers see, or, while the
/// quote is not fresh, its growing age. The status is rendered only when the throttle lets it through.
public struct StatusFollower<C: Clock>: IntakeFollower where C.Duration == Duration, C.Instant: Sendable {
    let health: DaemonHealth<C>
    let board: PriceBoard<C>

    public init(health: DaemonHealth<C>, board: PriceBoard<C>) {
        self.health = health
        self.board = board
    }

    /// Reached through `any IntakeFollower`: specialised for the daemon's clock, like the publisher's.
    @_specialize(where C == DaemonClock)
    public func follow(_ change: IntakeChange) {
        if change.watchersSee {
            let board = self.board
            health.reportStatus(kind: board.stateKey.kind) { board.statusSummary() }
        } else if change.statusAged {
            health.reportStatus(board.statusSummary())
        }
    }
}
