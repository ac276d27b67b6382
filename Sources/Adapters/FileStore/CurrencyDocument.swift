import PriceCore

/// A state file's text format that names its currency in its header (`history.txt`,
/// `daily.txt`): a file in another currency is moved aside, not loaded.
protocol CurrencyDocument {
    associatedtype Value: Sendable & Equatable
    /// The currency the header names; nil when it is not this format's header.
    static func currency(of bytes: [UInt8]) -> String?
    static func decode(_ bytes: [UInt8]) throws(QuoteDocumentError) -> Value
    static func encode(_ value: Value, currency: String) -> String
}
