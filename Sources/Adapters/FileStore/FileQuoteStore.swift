import Glibc
import PriceCore

/// Keeps `quote.json` in the state directory, replaced atomically and durably:
/// temp file in the same directory → write → fsync → rename → fsync the directory.
public struct FileQuoteStore: QuoteStore {
    public static let fileName = "quote.json"
    static let tempPrefix = ".quote.json.tmp."
    /// Bigger than any quote we write by far; larger files are not ours.
    static let readLimit = 64 * 1024

    public let directory: String
    public var path: String { directory + "/" + Self.fileName }
    public var quarantinePath: String { file.quarantinePath }
    private var file: StateFile { StateFile(path: path, limit: Self.readLimit, holding: "quote") }
    /// Each venue's configured base URL, now: stamped on saves and compared on loads.
    let origins: @Sendable () -> [SourceName: String]
    /// What the configured venues quote in, now (`USD` and a stablecoin such as `USDT`, or `EUR`): a saved
    /// quote in anything else is another currency's. Empty accepts any.
    let quoteAssets: @Sendable () -> Set<String>

    public init(directory: String, origins: @escaping @Sendable () -> [SourceName: String] = { [:] },
                quoteAssets: @escaping @Sendable () -> Set<String> = { [] }) {
        self.directory = directory
        self.origins = origins
        self.quoteAssets = quoteAssets
    }

    public func load() throws -> StoredQuote {
        let bytes: [UInt8]
        switch try file.read() {
        case .missing: return .none
        case .notOurs(let reason): return .quarantined(reason: reason, movedTo: try file.quarantine())
        case .contents(let contents): bytes = contents
        }
        let quote: Quote
        do {
            quote = try QuoteDocument.decode(bytes)
        } catch {
            return .quarantined(reason: error.description, movedTo: try file.quarantine())
        }
        let assets = quoteAssets()
        if !assets.isEmpty, !assets.contains(quote.currency) {
            return .foreign(quote, reason: "it is in \(quote.currency), and the configured sources quote \(assets.sorted().joined(separator: " or "))")
        }
        let current = origins()
        for (source, url) in QuoteDocument.origins(bytes) where current[source] != nil && current[source] != url {
            return .foreign(quote, reason: "its \(source) price came from \(url), not the configured \(current[source] ?? "")")
        }
        return .quote(quote)
    }

    public func save(_ quote: Quote) throws {
        let temp = directory + "/" + Self.tempPrefix + String(getpid())
        try FileSystem.writeDurably(Array(QuoteDocument.encode(quote, origins: origins()).utf8), to: path, via: temp, mode: 0o644)
    }
}
