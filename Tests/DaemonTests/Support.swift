import Daemon
import DaemonKit
import DaemonKitTesting
import DaemonConfig
import Logging
import MetricsExport
import PriceCore

/// The socket's answers over `board`, with the default source chain.
func makeReplies<C: Clock>(_ board: PriceBoard<C>, metrics: PrometheusExporter = PrometheusExporter()) throws -> DaemonReplies<C, SourcePlan> {
    let directory = SourceDirectory<SourcePlan, C.Instant>(plan: try SourcePlan(try SettingsLoader.load(.init(environment: [:]))))
    // The ledger learns the chain through its keeper and door, as the daemon's does.
    _ = LedgerKeeper(LedgerDoor(directory.ledger), chain: directory.current.descriptors,
                   restraints: RestraintKeeper(store: MemoryRestraintStore(), work: TestWork(), logger: Logger(label: "btcpriced")),
                   clock: board.clock, wallClock: board.wallClock, logger: Logger(label: "btcpriced"))
    return DaemonReplies(board: board, directory: directory, exposition: { metrics.exposition(quote: $0, state: $1, currency: $2, clockOffset: $3) })
}
