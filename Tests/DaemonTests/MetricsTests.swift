import Daemon
import DaemonKit
import DaemonKitTesting
import Logging
import MetricsExport
import PriceCore
import Testing
import TestClocks

@Suite("Daemon metrics: counters and gauges move on the right events", .timeLimit(.minutes(1)))
struct DaemonMetricsTests {
    @Test func cyclesSetSourceUpAndCountFailuresByReason() {
        let exporter = PrometheusExporter()
        let metrics = FetchMetrics(factory: exporter.factory)
        metrics.record([.failed(.binance, .geoRestricted), .succeeded(.coinbase, SourceQuote(price: try! Price(parsing: "1"), symbol: "BTC-USD", quoteAsset: "USD"))])
        metrics.record([.coolingDown(.binance), .failed(.coinbase, .timeout(after: .milliseconds(800))), .paced(.kraken)])
        metrics.record([.coolingDown(.binance), .failed(.coinbase, .timeout(after: .milliseconds(800)))])
        let text = exporter.exposition()
        #expect(text.contains(#"btcpriced_fetch_failures_total{source="binance",reason="geo_restricted"} 1"#))
        #expect(text.contains(#"btcpriced_fetch_failures_total{source="coinbase",reason="timeout"} 2"#))
        #expect(text.contains(#"btcpriced_source_up{source="binance"} 0.0"#) && text.contains(#"btcpriced_source_up{source="coinbase"} 0.0"#))
        #expect(!text.contains(#"source="kraken""#), "a paced source was not asked: no series")
    }

    @Test func aFailedWriteIsCountedAndEveryWriteTimed() async throws {
        let exporter = PrometheusExporter()
        let store = RecordingStore(failures: 1)
        let work = TestWork()
        let persister = QuotePersister(store: store, work: work, minimumInterval: .zero, logger: Logger(label: "test"), metrics: exporter.factory)
        let running = Task { await persister.run() }
        persister.offer(quote("1", at: 1000))
        await work.finished(1)
        persister.offer(quote("2", at: 2000))
        persister.finish()
        await running.value
        let text = exporter.exposition()
        #expect(text.contains("btcpriced_persist_failures_total 1\n"))
        #expect(text.contains("btcpriced_persist_duration_seconds_count 1\n"), "the successful write is timed")
    }

    @Test func theScrapeReadsTheExactPriceTheStateAndTheBuildFromTheBoard() throws {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(10))
        let intake = makeIntake(board)
        let replies = try makeReplies(board)
        #expect(replies.metricsReply().contains("btcpriced_stale 1\n"), "no quote yet counts as stale")
        #expect(!replies.metricsReply().contains("btcpriced_price{"))
        _ = intake.poll(quote("114459.80000001"))
        let fresh = replies.metricsReply()
        #expect(fresh.contains(#"btcpriced_price{source="binance",quote_asset="USDT",currency="USD",symbol="BTCUSDT"} 114459.80000001"#), "\(fresh)")
        #expect(fresh.contains("btcpriced_stale 0\n") && fresh.contains("btcpriced_last_update_timestamp_seconds 1763740800.000\n"))
        #expect(fresh.contains(#"btcpriced_build_info{version=""#))
        clock.advance(by: .seconds(11))
        #expect(replies.metricsReply().contains("btcpriced_stale 1\n"))
    }

    @Test func streamConnectionsAndReconnectsAreCounted() {
        let exporter = PrometheusExporter()
        let state = StreamState(venue: .binance, link: StreamLink(now: ManualClock().now), metrics: exporter.factory)
        #expect(exporter.exposition().contains(#"btcpriced_stream_connected{source="binance"} 0.0"#))
        state.opened()
        #expect(exporter.exposition().contains(#"btcpriced_stream_connected{source="binance"} 1.0"#))
        state.ended("stalled")
        state.opened()
        let text = exporter.exposition()
        #expect(text.contains(#"btcpriced_stream_reconnects_total{source="binance"} 1"#) && text.contains(#"btcpriced_stream_connected{source="binance"} 1.0"#))
    }
}
