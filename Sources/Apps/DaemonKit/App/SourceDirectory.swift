import PriceCore
import Synchronization
import WireProtocol

/// The configured chain and the ledger of every venue's health, rests and budget. It answers
/// the `sources` request: the ledger's live rows merged with the configured but skipped
/// sources, in the configured order.
public final class SourceDirectory<Plan: ChainPlan, Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let ledger = SourceLedger<Instant>()
    private let plan: Mutex<Plan>
    /// The stream's line of the report, once a stream is wired in.
    private let stream = Mutex<(@Sendable (Instant) -> SourcesReport.Stream)?>(nil)

    /// The ledger learns the chain through its door (`LedgerDoor`); this only reads it.
    public init(plan: Plan) {
        self.plan = Mutex(plan)
    }

    /// The plan in use; a reload sets the next one.
    public var current: Plan {
        get { plan.withLock { $0 } }
        set { plan.withLock { $0 = newValue } }
    }

    public func attach(stream report: @escaping @Sendable (Instant) -> SourcesReport.Stream) {
        stream.withLock { $0 = report }
    }

    public func report(at now: Instant) -> SourcesReport {
        let plan = current
        let live = ledger.statuses(at: now)
        let rows = plan.configured.compactMap { name in
            live.first { $0.name == name } ?? plan.skippedStatuses.first { $0.name == name }
        }
        return SourcesReport(mode: plan.modeName, entries: rows.map { Self.entry($0, route: plan.route(of: $0.name)) },
                             stream: stream.withLock { $0 }?(now))
    }

    private static func entry(_ status: SourceStatus, route: String?) -> SourcesReport.Entry {
        SourcesReport.Entry(name: status.name.rawValue, state: status.state.rawValue, quoteAsset: status.quoteAsset,
                            lastPrice: status.lastPrice?.description, lastPriceAt: status.lastPriceAt?.rfc3339,
                            lastError: status.lastError, lastErrorAt: status.lastErrorAt?.rfc3339,
                            latencyMilliseconds: status.latency?.wholeMilliseconds, callsLastDay: status.callsLastDay,
                            dailyBudget: status.dailyBudget, selected: status.selected, note: status.note, route: route,
                            candleRequests: status.candleRequests)
    }
}
