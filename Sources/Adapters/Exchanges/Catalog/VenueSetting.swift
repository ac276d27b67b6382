/// A setting a venue needs beyond its URLs, owned by its catalog entry: a market symbol, a
/// call budget, an API key. The config reads, validates, documents and reloads it from here,
/// so a venue with such a setting is still one entry plus its adapter files.
public struct VenueSetting: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A BTC market symbol: `BTC` then its quote asset, which quotes are labelled with.
        case symbol
        case wholeNumber(ClosedRange<Int>)
        /// A secret. Also read from the file named by `<key>_FILE`, or from the systemd
        /// credential `credential` (LoadCredential=); messages name where, never the value.
        case apiKey(credential: String)
    }

    /// `BTCPRICED_BINANCE_SYMBOL`.
    public let key: String
    /// "" for none (an API key).
    public let defaultValue: String
    public let kind: Kind

    public init(key: String, defaultValue: String = "", kind: Kind) {
        self.key = key
        self.defaultValue = defaultValue
        self.kind = kind
    }

    public var description: String { key }

    /// The setting naming the file an API key is read from; nil for other kinds.
    public var fileKey: String? {
        guard case .apiKey = kind else { return nil }
        return key + "_FILE"
    }

    /// The systemd credential an API key is read from; nil for other kinds.
    public var credential: String? {
        guard case .apiKey(let credential) = kind else { return nil }
        return credential
    }
}
