/// Minutes of the history that came from a venue's candles rather than from prices the daemon
/// saw itself: shown as such ("filled from binance candles") and kept with the bars.
public struct FilledSpan: Sendable, Hashable {
    /// Minutes since the Unix epoch, both ends included.
    public var minutes: ClosedRange<Int64>
    public let source: SourceName

    public init(minutes: ClosedRange<Int64>, source: SourceName) {
        self.minutes = minutes
        self.source = source
    }

    /// `filled` (sorted minutes) as runs of consecutive minutes from `source`.
    static func runs(of filled: [Int64], from source: SourceName) -> [FilledSpan] {
        var spans: [FilledSpan] = []
        for minute in filled {
            if let last = spans.last, last.minutes.upperBound + 1 == minute {
                spans[spans.count - 1].minutes = last.minutes.lowerBound...minute
            } else {
                spans.append(FilledSpan(minutes: minute...minute, source: source))
            }
        }
        return spans
    }

    /// `spans` in minute order, with spans of one source that touch or overlap made one.
    static func merged(_ spans: [FilledSpan]) -> [FilledSpan] {
        var merged: [FilledSpan] = []
        for span in spans.sorted(by: { $0.minutes.lowerBound < $1.minutes.lowerBound }) {
            if let last = merged.last, last.source == span.source, last.minutes.upperBound + 1 >= span.minutes.lowerBound {
                merged[merged.count - 1].minutes = last.minutes.lowerBound...max(last.minutes.upperBound, span.minutes.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }
}
