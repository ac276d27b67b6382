import JSONText
import PriceCore

/// Shared steps of the stream parsers: each message is one JSON text frame, checked and bounded
/// like a REST body, because it is just as untrusted.
enum StreamMessage {
    /// Binance documents frames far below this; anything bigger is not a ticker.
    static let largestFrame = 64 * 1024

    static func json(_ frame: [UInt8]) throws(FetchFailure) -> JSONValue {
        guard frame.count <= largestFrame else { throw .bodyTooLarge(limit: largestFrame) }
        return try ResponseChecks.parse(frame).get()
    }

    static func prices(_ fields: (JSONValue?, String)...) throws(FetchFailure) -> [Price] {
        var prices: [Price] = []
        for (value, name) in fields { prices.append(try ResponseChecks.price(value, field: name)) }
        return prices
    }
}
