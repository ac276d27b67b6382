import DaemonKit
import MetricsExport
import PriceCore
import SocketServer
import WireProtocol

/// What the socket answers: the board's lines, and the two this composition root owns, the
/// `sources` report (the configured chain) and the metrics exposition (Prometheus).
final class SocketReplies<C: Clock>: StatusProvider, Sendable where C.Duration == Duration {
    let board: PriceBoard<C>
    let directory: SourceDirectory<C.Instant>
    let metrics: PrometheusExporter

    init(board: PriceBoard<C>, directory: SourceDirectory<C.Instant>, metrics: PrometheusExporter) {
        self.board = board
        self.directory = directory
        self.metrics = metrics
    }

    func statusReply() -> String { board.statusReply() }
    func priceReply() -> String { board.priceReply() }
    func historyReply(_ query: HistoryQuery) -> String { board.historyReply(query) }

    func sourcesReport() -> String {
        var report = directory.report(at: board.clock.now)
        // While trades stream, the streaming venue's last price is its newest trade, not its
        // last REST answer.
        if board.stateKey.transport == .stream, let quote = board.quote,
           let row = report.entries.firstIndex(where: { $0.name == quote.source.rawValue }) {
            report.entries[row].lastPrice = quote.price.description
            report.entries[row].lastPriceAt = quote.timestamp.rfc3339
        }
        return report.line
    }

    func metricsReply() -> String {
        let state = board.freshness().state
        return metrics.exposition(adding: SnapshotMetrics.families(quote: board.quote, state: state, currency: board.currency))
    }
}
