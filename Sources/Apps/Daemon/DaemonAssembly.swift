import DaemonConfig
import DaemonKit
import FileStore
import Logging
import MetricsExport
import NIOCore
import PriceCore
import SocketServer

/// The adapters the daemon runs on, as `DaemonAssembly` wires them: the state directory's
/// files, the socket, and what production or a test injects.
public struct DaemonParts<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public var clock: C
    public var wallClock: any WallClock
    public var plan: SourcePlan
    /// The venues a plan asks; called again with each plan a reload brings.
    public var sources: @Sendable (SourcePlan) -> [any PriceSource]
    /// quote.json, sources.json and history.txt live here.
    public var stateDirectory: String
    public var listener: QuoteServer.Listener
    public var serverLimits = ServerLimits()
    public var group: any EventLoopGroup
    public var notifier: any HealthNotifier
    public var watchdogInterval: Duration?
    public var logger: Logger
    public var serviceLogger: Logger
    public var version: String
    public var persistInterval: Duration
    public var metrics = PrometheusExporter()
    public var work: any BlockingWork = ThreadPoolWork()

    public init(clock: C, wallClock: any WallClock, plan: SourcePlan, sources: @escaping @Sendable (SourcePlan) -> [any PriceSource],
                stateDirectory: String, listener: QuoteServer.Listener, group: any EventLoopGroup, notifier: any HealthNotifier,
                watchdogInterval: Duration?, logger: Logger, serviceLogger: Logger, version: String, persistInterval: Duration) {
        self.clock = clock
        self.wallClock = wallClock
        self.plan = plan
        self.sources = sources
        self.stateDirectory = stateDirectory
        self.listener = listener
        self.group = group
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
        self.logger = logger
        self.serviceLogger = serviceLogger
        self.version = version
        self.persistInterval = persistInterval
    }
}

/// Makes DaemonKit's ports from the parts: the stores in the state directory (prepared: a
/// leftover temp file from an interrupted write is removed), the socket server and the metrics
/// exposition. The caller sets the rest (streams, host pace, executor, hooks) and builds the
/// daemon from them.
public enum DaemonAssembly {
    public static func ports<C>(_ parts: DaemonParts<C>) throws(DaemonStartError) -> DaemonPorts<C, SourcePlan> {
        let directory = SourceDirectory<SourcePlan, C.Instant>(plan: parts.plan)
        let quoteStore = FileQuoteStore(directory: parts.stateDirectory, origins: { directory.current.origins },
                                        quoteAssets: { directory.current.quoteAssets })
        do {
            let removed = try quoteStore.prepare()
            if !removed.isEmpty { parts.logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(quoteStore.directory)") }
        } catch {
            throw DaemonStartError("cannot use the state directory: \(error)")
        }
        let metrics = parts.metrics
        var ports = DaemonPorts(
            clock: parts.clock, wallClock: parts.wallClock, directory: directory, sources: parts.sources, quoteStore: quoteStore,
            historyStore: FileHistoryStore(directory: parts.stateDirectory, currency: parts.plan.currency),
            restraintStore: FileRestraintStore(directory: parts.stateDirectory),
            serve: { [parts] replies in
                SocketWatchers(server: try await QuoteServer.start(listener: parts.listener, status: replies, version: parts.version,
                                                                   limits: parts.serverLimits, clock: parts.clock, logger: parts.logger, group: parts.group))
            },
            exposition: { metrics.exposition(quote: $0, state: $1, currency: $2) },
            notifier: parts.notifier, watchdogInterval: parts.watchdogInterval, logger: parts.logger, serviceLogger: parts.serviceLogger,
            persistInterval: parts.persistInterval, work: parts.work)
        ports.hints = .from(parts.plan.settings.catalog)
        return ports
    }
}

extension DaemonReplies: StatusProvider {}

/// The socket server as the daemon's watcher port.
struct SocketWatchers: WatcherServer {
    let server: QuoteServer

    func broadcast(_ line: String) { _ = server.broadcast(line) }
    var watcherCount: Int { server.watcherCount }
    func shutdown() async { await server.shutdown() }
}
