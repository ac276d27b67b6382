import CoreMetrics
import Prometheus

/// The daemon's registry: the adapters record into it through swift-metrics, and the three ways
/// out (the `metrics` request, the textfile, the HTTP listener) read `exposition(adding:)`.
public final class PrometheusExporter: Sendable {
    public let registry = PrometheusCollectorRegistry()
    public let factory: PrometheusMetricsFactory

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Venues answer in tens of milliseconds and time out at a second or two; a durable
        // write takes a fraction of a millisecond to tens on a slow disk.
        factory.durationHistogramBuckets = [
            "btcpriced_fetch_duration_seconds": [10, 25, 50, 100, 250, 500, 1000, 2000].map { Duration.milliseconds($0) },
            "btcpriced_persist_duration_seconds": [1, 5, 10, 50, 100, 500, 1000].map { Duration.milliseconds($0) },
        ]
        self.factory = factory
    }

    /// Makes it swift-metrics' factory for the whole process; call once, at start.
    public func bootstrap() {
        MetricsSystem.bootstrap(factory)
    }

    /// The text exposition (format 0.0.4): every family with its HELP line, then `extra`
    /// families the daemon renders itself (the exact price). Never a client-side timestamp.
    public func exposition(adding extra: [MetricFamilyText] = []) -> String {
        var text = ""
        for line in registry.emitToString().split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
               let help = MetricHelp.text[String(name)] {
                text += "# HELP \(name) \(help)\n"
            }
            text += line + "\n"
        }
        for family in extra { text += family.text }
        return text
    }
}

/// One family rendered by hand, for values a Double would round (the price).
public struct MetricFamilyText: Sendable {
    public let text: String

    /// `samples` are label sets with their value text, which must already be a valid number.
    public init(name: String, type: String, samples: [(labels: [(String, String)], value: String)]) {
        var text = "# HELP \(name) \(MetricHelp.text[name] ?? name)\n# TYPE \(name) \(type)\n"
        for sample in samples {
            text += name
            if !sample.labels.isEmpty {
                text += "{" + sample.labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " \(sample.value)\n"
        }
        self.text = text
    }

    static func escaped(_ value: String) -> String {
        var out = ""
        for character in value.prefix(128) {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
