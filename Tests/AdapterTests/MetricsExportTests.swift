import CoreMetrics
import DaemonConfig
import MetricsExport
import PriceCore
import Testing

@Suite("Metrics exposition: HELP lines, exact price text, escaping, reasons")
struct MetricsExportTests {
    @Test func everyRecordedFamilyHasItsHelpAndTheHandRenderedOnesFollow() {
        let exporter = PrometheusExporter()
        Counter(label: "btcpriced_fetch_failures_total", dimensions: [("source", "kraken"), ("reason", "timeout")], factory: exporter.factory).increment(by: 2)
        Gauge(label: "btcpriced_watch_subscribers", factory: exporter.factory).record(3)
        let price = MetricFamilyText(name: "btcpriced_price", type: "gauge",
                                     samples: [([("source", "kraken"), ("quote_asset", "USD")], "114459.80000000000000000001")])
        let text = exporter.exposition(adding: [price])
        #expect(text.contains("# HELP btcpriced_fetch_failures_total Failed price requests by source and reason.\n# TYPE btcpriced_fetch_failures_total counter\n"))
        #expect(text.contains(#"btcpriced_fetch_failures_total{source="kraken",reason="timeout"} 2"#))
        #expect(text.contains("# HELP btcpriced_watch_subscribers "))
        #expect(text.hasSuffix(#"btcpriced_price{source="kraken",quote_asset="USD"} 114459.80000000000000000001"# + "\n"),
                "the price keeps every digit; a Double would not")
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.count
        let helps = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.count
        #expect(types == helps && types == 3)
    }

    /// Several currencies: each staleness and update time carries its currency, as the price
    /// does; one currency keeps the unlabelled samples every rule and dashboard reads.
    @Test func severalCurrenciesLabelEverySnapshotSample() throws {
        let euro = Quote(price: try Price(parsing: "98765.4"), currency: "EUR", symbol: "BTCEUR", source: .binance,
                         timestamp: Timestamp(millisecondsSinceEpoch: 1_763_740_800_000))
        let text = SnapshotMetrics.families([.init(quote: nil, state: .nodata, currency: "USD"), .init(quote: euro, state: .fresh, currency: "EUR")])
            .map(\.text).joined()
        #expect(text.contains("btcpriced_stale{currency=\"USD\"} 1\nbtcpriced_stale{currency=\"EUR\"} 0\n"), "\(text)")
        #expect(text.contains(#"btcpriced_price{source="binance",quote_asset="EUR",currency="EUR",symbol="BTCEUR"} 98765.4"#), "\(text)")
        #expect(text.contains("btcpriced_last_update_timestamp_seconds{currency=\"EUR\"} 1763740800.000\n"), "\(text)")
        let one = SnapshotMetrics.families([.init(quote: euro, state: .fresh, currency: "EUR")]).map(\.text).joined()
        #expect(one.contains("btcpriced_stale 0\n") && one.contains("btcpriced_last_update_timestamp_seconds 1763740800.000\n"), "\(one)")
    }

    @Test func labelValuesAreEscapedAndBounded() {
        let family = MetricFamilyText(name: "btcpriced_build_info", type: "gauge",
                                      samples: [([("version", "1\"\\\n" + String(repeating: "x", count: 300))], "1")])
        #expect(family.text.contains(#"version="1\"\\\n"#))
        #expect(family.text.count < 400)
    }

    @Test("every failure has one reason of the closed set", arguments: [
        (FetchFailure.timeout(after: .seconds(1)), "timeout"), (.transport("connection refused"), "transport"),
        (.httpStatus(502), "http"), (.exchangeError("x"), "http"), (.unauthorized("key"), "http"),
        (.rateLimited(retryAfter: nil), "rate_limited"), (.geoRestricted, "geo_restricted"),
        (.notJSON("x"), "invalid"), (.missingField("price"), "invalid"), (.wrongSymbol(expected: "A", got: "B"), "invalid"),
        (.bodyTooLarge(limit: 1), "invalid"),
    ])
    func failureReasons(failure: FetchFailure, reason: String) {
        #expect(failure.reason.rawValue == reason)
        #expect(FailureReason.allCases.map(\.rawValue).contains(reason))
    }

    @Test("metrics settings", arguments: [
        (["BTCPRICED_METRICS_LISTEN": "127.0.0.1:9843"], "127.0.0.1:9843 loopback"),
        (["BTCPRICED_METRICS_LISTEN": "[::1]:9843"], "[::1]:9843 loopback"),
        (["BTCPRICED_METRICS_LISTEN": "0.0.0.0:9843"], "0.0.0.0:9843 public"),
        ([:], "none"),
    ])
    func listenAddresses(environment: [String: String], expected: String) throws {
        let settings = try SettingsLoader.load(.init(environment: environment))
        #expect(settings.http.address.map { "\($0) \($0.isLoopback ? "loopback" : "public")" } ?? "none" == expected)
        #expect(settings.metricsTextfileInterval == .seconds(15) && settings.metricsTextfile == nil)
    }

    @Test("bad metrics settings name the key and the fix", arguments: [
        ("BTCPRICED_METRICS_LISTEN", "localhost:9843", "literal IPv4"), ("BTCPRICED_METRICS_LISTEN", "127.0.0.1", "address and port"),
        ("BTCPRICED_METRICS_LISTEN", "127.0.0.1:99999", "valid port"), ("BTCPRICED_METRICS_LISTEN", "[fe80::1", "address and port"),
        ("BTCPRICED_METRICS_TEXTFILE", "btcpriced.prom", "absolute"), ("BTCPRICED_METRICS_TEXTFILE", "/var/lib/x.txt", ".prom"),
        ("BTCPRICED_METRICS_TEXTFILE_INTERVAL", "0", "greater than zero"),
    ])
    func badSettings(key: String, value: String, says: String) {
        do {
            _ = try SettingsLoader.load(.init(environment: [key: value]))
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect("\(error)".contains(key) && "\(error)".contains(says), "\(error)")
        }
    }
}
