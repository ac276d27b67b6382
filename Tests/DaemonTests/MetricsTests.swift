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

    /// A connection that goes live sets the gauge; one that stalls clears it; the next one
    /// counts as a reconnect.
    @Test(.timeLimit(.minutes(1))) func streamConnectionsAndReconnectsAreCounted() async throws {
        let exporter = PrometheusExporter()
        let (board, clock, _) = makeBoard()
        func trade(_ price: String) throws -> [StreamEvent] {
            [.trade(SourceQuote(price: try Price(parsing: price), symbol: "BTCUSDT", quoteAsset: "USDT"), nil)]
        }
        let stream = ScriptedPriceStream([.open([try trade("100.5")]), .open([try trade("101.5")])])
        let streams = try #require(StreamSupervisor(venues: [StreamVenue(name: .binance, connection: stream)], clock: clock,
                                                    jitter: FixedJitter(0), logger: Logger(label: "btcpriced"), metrics: exporter.factory))
        let connected = #"btcpriced_stream_connected{source="binance"} "#, reconnects = #"btcpriced_stream_reconnects_total{source="binance"} 1"#
        #expect(exporter.exposition().contains(connected + "0.0"))
        let lines = Awaitable<[String]>([])
        let intake = makeIntake(board, streamGate: streams.gate) { line in lines.update { $0.append(line) } }
        // Returns once watchers were sent `price`: the connection is live and its trade went through.
        func served(_ price: String) async -> Bool { await lines.until { $0.contains { $0.contains(#""price":"\#(price)""#) } } }
        let service = streams.service(feeding: intake, telling: { _ in })
        let task = Task { try await service.run() }
        defer { task.cancel() }
        #expect(await served("100.5"))
        #expect(await clock.waitForSleepers(1))
        #expect(exporter.exposition().contains(connected + "1.0"), "\(exporter.exposition())")
        clock.advance(by: .seconds(5))  // StreamPolicy().stallAfter
        #expect(await clock.waitForSleepers(1))
        #expect(exporter.exposition().contains(connected + "0.0"), "a stalled stream is down: \(exporter.exposition())")
        clock.advance(by: .seconds(2))  // StreamPolicy().firstRetry, with no jitter
        #expect(await served("101.5"))
        let text = exporter.exposition()
        #expect(stream.connections == 2 && text.contains(reconnects) && text.contains(connected + "1.0"), "\(stream.connections) connections: \(text)")
    }
}
