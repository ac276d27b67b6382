import PriceCore
import SocketServer
import Synchronization
import WireProtocol

/// The daemon's current knowledge: the latest quote and what is failing. Read by socket
/// connections on event-loop threads, so access is a short critical section.
final class PriceBoard: StatusProvider, Sendable {
    struct State: Sendable, Equatable {
        var quote: Quote?
        var failureSummary: String?
    }

    private let state = Mutex(State())
    private let staleLimit: Mutex<Duration>
    let wallClock: any WallClock

    init(staleAfter: Duration, wallClock: any WallClock) {
        self.staleLimit = Mutex(staleAfter)
        self.wallClock = wallClock
    }

    /// Changes on reload.
    var staleAfter: Duration {
        get { staleLimit.withLock { $0 } }
        set { staleLimit.withLock { $0 = newValue } }
    }

    var snapshot: State { state.withLock { $0 } }

    func restore(_ quote: Quote) {
        state.withLock { $0.quote = quote }
    }

    /// Records a cycle; returns true when watchers should hear about it.
    func record(_ report: CycleReport) -> Bool {
        state.withLock { state in
            let before = state
            if let quote = report.quote { state.quote = quote }
            state.failureSummary = report.failureSummary
            return report.quote != nil || state != before
        }
    }

    func freshness() -> Freshness {
        Freshness(of: snapshot.quote, at: wallClock.now(), staleAfter: staleAfter)
    }

    func statusSummary() -> String {
        let current = snapshot
        return StatusSummary.line(quote: current.quote, freshness: Freshness(of: current.quote, at: wallClock.now(), staleAfter: staleAfter),
                                  failures: current.failureSummary)
    }

    func currentStatus() -> StatusLine {
        let current = snapshot
        let freshness = Freshness(of: current.quote, at: wallClock.now(), staleAfter: staleAfter)
        let message = StatusMessage(
            price: current.quote?.price.description,
            currency: current.quote?.currency ?? "USD",
            symbol: current.quote?.symbol,
            source: current.quote?.source.rawValue,
            timestamp: current.quote?.timestamp.rfc3339,
            ageMilliseconds: freshness.ageMilliseconds,
            state: StatusMessage.State(rawValue: freshness.state.rawValue) ?? .nodata,
            lastError: current.failureSummary,
            version: ProductVersion.current
        )
        return StatusLine(json: message.line, price: message.price)
    }
}
