import Glibc
import PriceCore

/// The daemon's state directory as its stores, for one currency: quote.json, history.txt,
/// daily.txt and sources.json. `prepare` readies the directory before any of them is used.
public struct StateFiles: Sendable {
    public let directory: String
    public let quote: FileQuoteStore
    public let history: FileHistoryStore
    public let daily: FileDailyStore
    public let restraints: FileRestraintStore

    /// `origins` and `quoteAssets` say, at each save and load, what the configured venues are now
    /// (see `FileQuoteStore`).
    public init(directory: String, currency: String, origins: @escaping @Sendable () -> [SourceName: String] = { [:] },
                quoteAssets: @escaping @Sendable () -> Set<String> = { [] }) {
        self.directory = directory
        quote = FileQuoteStore(directory: directory, origins: origins, quoteAssets: quoteAssets)
        history = FileHistoryStore(directory: directory, currency: currency)
        daily = FileDailyStore(directory: directory, currency: currency)
        restraints = FileRestraintStore(directory: directory)
    }

    /// Creates the directory if needed and removes the temp files an interrupted write left
    /// behind (any store's, nothing else). Returns the names it removed.
    @discardableResult
    public func prepare() throws(StoreError) -> [String] {
        try FileSystem.makeDirectories(directory, mode: 0o755)
        let leftovers = [FileQuoteStore.tempPrefix, FileRestraintStore.tempPrefix, FileHistoryStore.tempPrefix, FileDailyStore.tempPrefix]
        var removed: [String] = []
        for name in try FileSystem.entries(of: directory) where leftovers.contains(where: name.hasPrefix) {
            if unlink(directory + "/" + name) == 0 { removed.append(name) }
        }
        return removed
    }
}
