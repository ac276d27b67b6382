import Daemon
import DaemonKit
import DaemonConfig
import MetricsExport
import PriceCore

/// The socket's answers over `board`, with the default source chain.
func makeReplies<C: Clock>(_ board: PriceBoard<C>, metrics: PrometheusExporter = PrometheusExporter()) throws -> DaemonReplies<C, SourcePlan> {
    DaemonReplies(board: board, directory: SourceDirectory(plan: try SourcePlan(try SettingsLoader.load(.init(environment: [:])))),
                  exposition: { metrics.exposition(quote: $0, state: $1, currency: $2, clockOffset: $3) })
}
