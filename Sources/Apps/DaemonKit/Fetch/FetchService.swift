import Logging
import PriceCore
import ServiceLifecycle

/// Runs fetch cycles until graceful shutdown, restarting the loop when a reload brings new
/// settings. Generic over its clock, so tests run it on a ManualClock.
public struct FetchService<C: Clock, Plan: ChainPlan>: Service where C.Duration == Duration, C.Instant: Sendable {
    let makeLoop: @Sendable (Plan) -> FetchLoop<C>
    let initialPlan: Plan
    let reloads: AsyncStream<Plan>
    let intake: PriceIntake<C>
    /// Where the cycles' restraints are offered to sources.json; the loop writes the ledger behind it.
    let keeper: LedgerKeeper<C>
    let health: DaemonHealth<C>
    let logger: Logger
    /// Hears every cycle after the service has handled it (tests wait on it).
    public var cycleHandled: @Sendable (CycleReport) -> Void = { _ in }
    public var metrics = FetchMetrics()
    /// Where the loop runs: the daemon's event loop, which also carries its HTTP connections, so
    /// a cycle wakes one thread instead of handing each step between threads.
    public var executor: (any TaskExecutor)?

    /// `makeLoop` makes the fetch loop for a plan: the first, then each one `reloads` brings.
    public init(makeLoop: @escaping @Sendable (Plan) -> FetchLoop<C>, initialPlan: Plan, reloads: AsyncStream<Plan>, intake: PriceIntake<C>,
                keeper: LedgerKeeper<C>, health: DaemonHealth<C>, logger: Logger) {
        self.makeLoop = makeLoop
        self.initialPlan = initialPlan
        self.reloads = reloads
        self.intake = intake
        self.keeper = keeper
        self.health = health
        self.logger = logger
    }

    public func run() async throws {
        let cycleHandled = self.cycleHandled, metrics = self.metrics
        let intake = self.intake, board = intake.board, health = self.health, logger = self.logger
        let keeper = self.keeper
        let handle: @Sendable (CycleReport, Duration, Plan) async -> Void = { report, maximumBackoff, plan in
            health.cycleCompleted()
            metrics.record(report.attempts)
            let hasQuote = board.quote != nil
            HealthLogging.log(report.events, report: report, hasQuote: hasQuote, maximumBackoff: maximumBackoff, plan: plan, logger: logger)
            intake.accept(report)
            await keeper.saveChanges()
            cycleHandled(report)
        }
        await cancelWhenGracefulShutdown {
            var plan = initialPlan
            var updates = reloads.makeAsyncIterator()
            while !Task.isCancelled {
                let loop = makeLoop(plan)
                let maximumBackoff = loop.schedule.maximumBackoff
                let running = Task(executorPreference: executor) { [plan] in await loop.run { await handle($0, maximumBackoff, plan) } }
                let next = await updates.next()
                running.cancel()
                await running.value
                guard let next else { break }
                plan = next
            }
        }
    }
}
