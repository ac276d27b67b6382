import PriceCore
import WireProtocol

/// The families read off the current snapshot at each scrape rather than recorded: the price
/// keeps its exact decimal text (a Gauge would round it through a Double), and the age and
/// staleness are as of the scrape.
public enum SnapshotMetrics {
    /// `currency` is the one configured (`USD` even when a venue answers in USDT, which
    /// `quote_asset` says); `symbol` is the venue's market.
    public static func families(quote: Quote?, state: FreshnessState, currency: String, clockOffset: Duration? = nil) -> [MetricFamilyText] {
        var families = [
            MetricFamilyText(name: "btcpriced_build_info", type: "gauge", samples: [([("version", ProductVersion.current)], "1")]),
            MetricFamilyText(name: "btcpriced_stale", type: "gauge", samples: [([], state == .fresh ? "0" : "1")]),
        ]
        if let quote {
            families.append(MetricFamilyText(name: "btcpriced_price", type: "gauge",
                                             samples: [([("source", quote.source.rawValue), ("quote_asset", quote.currency), ("currency", currency),
                                                         ("symbol", quote.symbol)], quote.price.description)]))
            families.append(MetricFamilyText(name: "btcpriced_last_update_timestamp_seconds", type: "gauge",
                                             samples: [([], secondsText(milliseconds: quote.timestamp.millisecondsSinceEpoch))]))
        }
        if let clockOffset {
            families.append(MetricFamilyText(name: "btcpriced_clock_offset_seconds", type: "gauge",
                                             samples: [([], secondsText(milliseconds: clockOffset.wholeMilliseconds))]))
        }
        return families
    }

    /// Milliseconds as decimal seconds, exactly: 3600123 is 3600.123, -1500 is -1.500.
    static func secondsText(milliseconds: Int64) -> String {
        let magnitude = milliseconds.magnitude, fraction = String(magnitude % 1000)
        return (milliseconds < 0 ? "-" : "") + "\(magnitude / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension PrometheusExporter {
    /// The exposition with the snapshot's families added, as each scrape reads them.
    public func exposition(quote: Quote?, state: FreshnessState, currency: String, clockOffset: Duration? = nil) -> String {
        exposition(adding: SnapshotMetrics.families(quote: quote, state: state, currency: currency, clockOffset: clockOffset))
    }
}
