import FoundationEssentials
import JSONText
import PriceCore

/// What every venue's candle parser shares: one candle's four prices and its start as a
/// minute bar, or nil when any of them cannot be read exactly.
enum CandleReading {
    /// A candle starting `seconds` after the epoch (on a whole minute) with these prices.
    static func bar(startSeconds seconds: Int64?, open: JSONValue?, high: JSONValue?, low: JSONValue?, close: JSONValue?) -> MinuteBar? {
        guard let seconds, seconds > 0, seconds % 60 == 0,
              let open = try? ResponseChecks.price(open, field: "open"), let high = try? ResponseChecks.price(high, field: "high"),
              let low = try? ResponseChecks.price(low, field: "low"), let close = try? ResponseChecks.price(close, field: "close")
        else { return nil }
        return MinuteBar(minute: seconds / 60, open: open.value, high: high.value, low: low.value, close: close.value)
    }

    /// Whole seconds from a string or a number literal.
    static func seconds(_ value: JSONValue?) -> Int64? {
        (value?.stringValue ?? value?.numberLiteral).flatMap { Int64($0) }
    }

    /// The candles of an answer that must hold an array of them at `field`.
    static func array(_ value: JSONValue?, field: String) throws(FetchFailure) -> [JSONValue] {
        guard let value else { throw .missingField(field) }
        guard let candles = value.arrayElements else { throw .exchangeError("\(field) is not a list of candles") }
        return candles
    }
}
