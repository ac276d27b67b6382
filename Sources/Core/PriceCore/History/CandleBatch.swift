import FoundationEssentials

/// A venue's one-minute candles as minute bars: oldest first, one per minute, each consistent,
/// and a count of the candles that could not be used (malformed, inconsistent, not on a
/// minute), so a venue that answers badly fills what it can and the daemon says so once.
public struct CandleBatch: Sendable, Equatable {
    public let bars: [MinuteBar]
    public let skipped: Int

    /// `candles` as read, nil for one that could not be read; of two for one minute, the later
    /// in the answer is kept.
    public init(reading candles: [MinuteBar?]) {
        var byMinute: [Int64: MinuteBar] = [:]
        var skipped = 0
        for candle in candles {
            guard let candle, candle.isConsistent else {
                skipped += 1
                continue
            }
            byMinute[candle.minute] = candle
        }
        bars = byMinute.values.sorted { $0.minute < $1.minute }
        self.skipped = skipped
    }
}
