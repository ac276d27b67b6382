import JSONText
import PriceCore

/// The on-disk form of a quote:
/// `{"version":1,"price":"68901.23","currency":"USD","symbol":"BTCUSDT","source":"<venue>","timestamp":"…"}`.
public enum QuoteDocument {
    public static let formatVersion = 1

    /// `origins`: the base URL each contributing venue was asked at, so a quote from a fake or
    /// test exchange is never restored by a run against the real ones.
    public static func encode(_ quote: Quote, origins: [SourceName: String] = [:]) -> String {
        let known = quote.contributors.compactMap { name in origins[name].map { JSONMember(key: name.rawValue, value: .string($0)) } }
        return JSONValue.object([
            "version": .number(String(formatVersion)),
            "price": .string(quote.price.description),
            "currency": .string(quote.currency),
            "symbol": .string(quote.symbol),
            "source": .string(quote.source.rawValue),
            "timestamp": .string(quote.timestamp.rfc3339),
            "origins": .object(JSONObject(members: known)),
        ]).encoded + "\n"
    }

    /// The origins a document names; empty for files written before they were recorded.
    public static func origins(_ bytes: [UInt8]) -> [SourceName: String] {
        guard case .object(let members)? = (try? JSONValue(parsing: bytes))?["origins"] else { return [:] }
        var result: [SourceName: String] = [:]
        for member in members.members { if let url = member.value.stringValue { result[SourceName(member.key)] = url } }
        return result
    }

    /// Throws a one-line reason when the bytes are not a quote this version understands.
    public static func decode(_ bytes: [UInt8]) throws(QuoteDocumentError) -> Quote {
        guard !bytes.isEmpty else { throw QuoteDocumentError("file is empty") }
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw QuoteDocumentError("not JSON (\(error))") }
        guard case .object = json else { throw QuoteDocumentError("not a JSON object") }
        if let version = json["version"] {
            guard version.numberLiteral == String(formatVersion) else {
                throw QuoteDocumentError("unsupported format version \(version.encoded)")
            }
        }
        func text(_ key: String) throws(QuoteDocumentError) -> String {
            guard let value = json[key]?.stringValue, !value.isEmpty else { throw QuoteDocumentError("missing or empty \(key)") }
            return value
        }
        let priceText = try text("price")
        let price: Price
        do { price = try Price(parsing: priceText) } catch { throw QuoteDocumentError(error.description) }
        guard let timestamp = Timestamp(rfc3339: try text("timestamp")) else { throw QuoteDocumentError("timestamp is not RFC 3339") }
        return Quote(price: price, currency: try text("currency"), symbol: try text("symbol"),
                     source: SourceName(try text("source")), timestamp: timestamp)
    }
}

public struct QuoteDocumentError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
