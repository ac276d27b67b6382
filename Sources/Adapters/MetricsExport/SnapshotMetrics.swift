import PriceCore
import WireProtocol

/// The families read off the current snapshot at each scrape rather than recorded: the price
/// keeps its exact decimal text (a Gauge would round it through a Double), and the age and
/// staleness are as of the scrape.
public enum SnapshotMetrics {
    /// `currency` is the one configured (`USD` even when a venue answers in USDT, which
    /// `quote_asset` says); `symbol` is the venue's market.
    public static func families(quote: Quote?, state: FreshnessState, currency: String, clockOffset: Duration? = nil) -> [MetricFamilyText] {
        families([Snapshot(quote: quote, state: state, currency: currency)], clockOffset: clockOffset)
    }

    /// One currency's quote and freshness as a scrape reads them.
    public struct Snapshot: Sendable {
        public let quote: Quote?
        public let state: FreshnessState
        public let currency: String

        public init(quote: Quote?, state: FreshnessState, currency: String) {
            self.quote = quote
            self.state = state
            self.currency = currency
        }
    }

    /// Every currency served, the primary first. With several, each sample of the staleness
    /// and the update time carries its `currency` label (as the price always does); with one,
    /// they have none, as they always had.
    public static func families(_ snapshots: [Snapshot], clockOffset: Duration? = nil) -> [MetricFamilyText] {
        let labelled = snapshots.count > 1
        func labels(_ snapshot: Snapshot) -> [(String, String)] { labelled ? [("currency", snapshot.currency)] : [] }
        var families = [
            MetricFamilyText(name: "btcpriced_build_info", type: "gauge", samples: [([("version", ProductVersion.current)], "1")]),
            MetricFamilyText(name: "btcpriced_stale", type: "gauge", samples: snapshots.map { (labels($0), $0.state == .fresh ? "0" : "1") }),
        ]
        let quoted = snapshots.compactMap { snapshot in snapshot.quote.map { (snapshot, $0) } }
        if !quoted.isEmpty {
            families.append(MetricFamilyText(name: "btcpriced_price", type: "gauge", samples: quoted.map { snapshot, quote in
                ([("source", quote.source.rawValue), ("quote_asset", quote.currency), ("currency", snapshot.currency), ("symbol", quote.symbol)],
                 quote.price.description)
            }))
            families.append(MetricFamilyText(name: "btcpriced_last_update_timestamp_seconds", type: "gauge", samples: quoted.map { snapshot, quote in
                (labels(snapshot), secondsText(milliseconds: quote.timestamp.millisecondsSinceEpoch))
            }))
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

    /// The exposition of a daemon that serves several currencies: `companions` are read at
    /// each scrape, after the primary's snapshot.
    public func exposition(_ primary: SnapshotMetrics.Snapshot, companions: [SnapshotMetrics.Snapshot], clockOffset: Duration?) -> String {
        exposition(adding: SnapshotMetrics.families([primary] + companions, clockOffset: clockOffset))
    }
}
