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
    private let staleness: Mutex<StalenessPolicy>
    let wallClock: any WallClock
    let directory: SourceDirectory

    init(directory: SourceDirectory, wallClock: any WallClock) {
        self.directory = directory
        self.staleness = Mutex(directory.current.stalenessPolicy)
        self.wallClock = wallClock
    }

    /// Changes on reload.
    var stalenessPolicy: StalenessPolicy {
        get { staleness.withLock { $0 } }
        set { staleness.withLock { $0 = newValue } }
    }

    /// How old the current quote may get before it is stale.
    var staleLimit: Duration { stalenessPolicy.limit(for: snapshot.quote) }

    func sourcesReport() -> String { directory.report().line }

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

    func freshness() -> Freshness { freshness(of: snapshot.quote) }

    private func freshness(of quote: Quote?) -> Freshness {
        Freshness(of: quote, at: wallClock.now(), staleAfter: stalenessPolicy.limit(for: quote))
    }

    func statusSummary() -> String {
        let current = snapshot
        return StatusSummary.line(quote: current.quote, freshness: freshness(of: current.quote), failures: current.failureSummary)
    }

    func currentStatus() -> StatusLine {
        let current = snapshot
        let freshness = freshness(of: current.quote)
        let message = StatusMessage(
            price: current.quote?.price.description,
            currency: current.quote?.currency ?? "USD",
            symbol: current.quote?.symbol,
            source: current.quote?.source.rawValue,
            timestamp: current.quote?.timestamp.rfc3339,
            ageMilliseconds: freshness.ageMilliseconds,
            state: StatusMessage.State(rawValue: freshness.state.rawValue) ?? .nodata,
            lastError: current.failureSummary,
            version: ProductVersion.current,
            sources: current.quote?.contributors.map(\.rawValue) ?? [],
            spread: current.quote?.spread.map { "\($0)" }
        )
        return StatusLine(json: message.line, price: message.price)
    }
}
