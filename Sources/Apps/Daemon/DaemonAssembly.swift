import DaemonConfig
import DaemonKit
import EventLoopScheduling
import FileStore
import Logging
import MetricsExport
import NIOCore
import PriceCore
import SocketServer
import Streams

/// Makes DaemonKit's ports from the adapters: the stores in `stateDirectory` (`StateFiles`,
/// prepared), the socket server on `listener`, its replies caught up by `reads`, and the metrics exposition. `sources` makes the
/// venues a plan asks, again for each plan a reload brings. The caller sets the rest (streams,
/// host pace, executor, hooks) and builds the daemon from them.
public enum DaemonAssembly {
    public static func ports<C: Clock>(
        clock: C, wallClock: any WallClock, plan: SourcePlan, sources: @escaping @Sendable (SourcePlan) -> [any PriceSource],
        stateDirectory: String, listener: QuoteServer.Listener, serverLimits: ServerLimits = ServerLimits(), group: any EventLoopGroup,
        notifier: any HealthNotifier, watchdogInterval: Duration?, logger: Logger, serviceLogger: Logger, version: String,
        persistInterval: Duration, metrics: PrometheusExporter = PrometheusExporter(), reads: PacedReads? = nil,
        work: any BlockingWork = ThreadPoolWork()
    ) throws(DaemonStartError) -> DaemonPorts<C, SourcePlan> where C.Duration == Duration, C.Instant: Sendable {
        let directory = SourceDirectory<SourcePlan, C.Instant>(plan: plan)
        let files = StateFiles(directory: stateDirectory, currency: plan.currency, origins: { directory.current.origins },
                               quoteAssets: { directory.current.quoteAssets })
        do {
            let removed = try files.prepare()
            if !removed.isEmpty { logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(files.directory)") }
        } catch {
            throw DaemonStartError("cannot use the state directory: \(error)")
        }
        var ports = DaemonPorts(
            clock: clock, wallClock: wallClock, directory: directory, sources: sources, quoteStore: files.quote, historyStore: files.history,
            restraintStore: files.restraints,
            serve: { replies in
                QuoteServerWatchers(try await QuoteServer.start(listener: listener, status: CaughtUpReplies.serving(replies, reads: reads), version: version, limits: serverLimits,
                                                                clock: clock, logger: logger, group: group))
            },
            exposition: { metrics.exposition(quote: $0, state: $1, currency: $2, clockOffset: $3) },
            notifier: notifier, watchdogInterval: watchdogInterval, logger: logger, serviceLogger: serviceLogger,
            persistInterval: persistInterval, work: work)
        ports.dailyStore = files.daily
        return ports
    }
}

extension DaemonReplies: StatusProvider {}
