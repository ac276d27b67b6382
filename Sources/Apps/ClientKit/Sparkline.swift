import WireProtocol

/// `▁▂▃▄▅▆▇█` from exact decimal text; gaps are spaces.
enum Sparkline {
    static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One cell per value. All-equal prices (or a single one) sit on the middle level, so a flat
    /// market does not look like a crash.
    static func render(_ closes: [String?]) -> String {
        let values = closes.map { $0.flatMap { FixedDecimal($0) } }
        let known = values.compactMap { $0 }
        guard let low = known.min(), let high = known.max() else { return String(repeating: " ", count: closes.count) }
        let span = high.units - low.units
        return String(values.map { value -> Character in
            guard let value else { return " " }
            guard span > 0 else { return levels[3] }
            let top = Int128(levels.count - 1)
            let level = ((value.units - low.units) * top * 2 + span) / (span * 2)
            return levels[Int(level)]
        })
    }

    /// Keeps `count` of `closes`, evenly spaced: for each cell, the last known close in its
    /// stretch, so a narrow chart still ends on the latest price.
    static func resample(_ closes: [String?], to count: Int) -> [String?] {
        guard count > 0, closes.count > count else { return closes }
        return (0..<count).map { cell in
            let start = cell * closes.count / count, end = (cell + 1) * closes.count / count
            return closes[start..<end].last { $0 != nil } ?? nil
        }
    }
}
