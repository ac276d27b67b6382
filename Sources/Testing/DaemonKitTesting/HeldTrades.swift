import DaemonKit
import PriceCore
import Synchronization

/// A stream's backlog in place of the paced reads: trades the kernel holds, which reach the
/// door only when a reader catches the stream up. Counts the watchers that joined.
public final class HeldTrades<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private let intake: PriceIntake<C>
    private let state = Mutex((held: [Quote](), catchUps: 0, watchersJoined: 0))

    public init(intake: PriceIntake<C>) {
        self.intake = intake
    }

    /// A trade arrives and waits to be read.
    public func arrives(_ quote: Quote) { state.withLock { $0.held.append(quote) } }

    public var catchUps: Int { state.withLock { $0.catchUps } }
    public var watchersJoined: Int { state.withLock { $0.watchersJoined } }

    public func catchUp() {
        let held = state.withLock { state in
            state.catchUps += 1
            defer { state.held.removeAll() }
            return state.held
        }
        for quote in held { intake.stream(quote) }
    }

    public func watcherJoins() {
        state.withLock { $0.watchersJoined += 1 }
        catchUp()
    }
}
