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
        /// False for a restored quote stamped in the future: its age is unknown, so it is stale.
        var ageKnown = true
        /// Set for quotes this process received; their age follows the monotonic clock.
        var age = QuoteAge<ContinuousClock.Instant>(receivedAt: nil)
        /// Why quotes cannot be saved, while they cannot.
        var persistenceProblem: String?

        /// What `last_error` and STATUS= report: failing sources, then a failing disk.
        var problems: String? {
            let parts = [failureSummary, persistenceProblem.map { "saving: \($0)" }].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    /// How far in the future a restored quote's stamp may be before its age counts as unknown.
    static let futureTolerance = Duration.seconds(60)

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

    /// Set by the persister when saving starts or stops failing.
    func persistence(failing problem: String?) {
        state.withLock { $0.persistenceProblem = problem }
    }

    var snapshot: State { state.withLock { $0 } }

    func restore(_ quote: Quote, ageKnown: Bool) {
        state.withLock {
            $0.quote = quote
            $0.ageKnown = ageKnown
        }
    }

    /// Records a cycle; returns true when watchers should hear about it.
    func record(_ report: CycleReport) -> Bool {
        state.withLock { state in
            let before = state
            if let quote = report.quote {
                state.quote = quote
                state.ageKnown = true
                state.age = QuoteAge(receivedAt: .now)
            }
            state.failureSummary = report.failureSummary
            return report.quote != nil || state != before
        }
    }

    func freshness() -> Freshness { freshness(of: snapshot) }

    private func freshness(of current: State) -> Freshness {
        guard current.ageKnown else { return .unknownAge }
        return current.age.freshness(of: current.quote, now: .now, wallTime: wallClock.now(), staleAfter: stalenessPolicy.limit(for: current.quote))
    }

    /// How long until the current quote turns stale, on the same clocks as `freshness()`.
    func timeUntilStale() -> Duration? {
        let current = snapshot
        guard current.ageKnown else { return nil }
        return current.age.timeUntilStale(of: current.quote, now: .now, wallTime: wallClock.now(), staleAfter: stalenessPolicy.limit(for: current.quote))
    }

    func statusSummary() -> DaemonStatus {
        let current = snapshot
        return StatusSummary.status(quote: current.quote, freshness: freshness(of: current), failures: current.problems)
    }

    func currentStatus() -> StatusLine {
        let current = snapshot
        let freshness = freshness(of: current)
        let message = StatusMessage(
            price: current.quote?.price.description,
            currency: current.quote?.currency ?? "USD",
            symbol: current.quote?.symbol,
            source: current.quote?.source.rawValue,
            timestamp: current.quote?.timestamp.rfc3339,
            ageMilliseconds: freshness.ageMilliseconds,
            state: StatusMessage.State(rawValue: freshness.state.rawValue) ?? .nodata,
            lastError: current.problems,
            version: ProductVersion.current,
            sources: current.quote?.contributors.map(\.rawValue) ?? [],
            spread: current.quote?.spread.map { "\($0)" }
        )
        return StatusLine(json: message.line, price: message.price)
    }
}
