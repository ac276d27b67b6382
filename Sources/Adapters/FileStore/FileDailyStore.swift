import PriceCore

/// Keeps `daily.txt` (see DailyDocument) in the state directory, replaced whole, atomically and
/// durably, like `quote.json`: once a day, when a day is made, and at shutdown.
public struct FileDailyStore: DailyStore {
    public static let fileName = "daily.txt"
    static let tempPrefix = CurrencyFile<DailyDocument>.tempPrefix(of: fileName)
    /// Ten years are about 600 KB; larger files are not ours.
    static let readLimit = 2 * 1024 * 1024

    let file: CurrencyFile<DailyDocument>
    public var directory: String { file.directory }
    public var currency: String { file.currency }
    public var path: String { file.path }
    public var quarantinePath: String { file.file.quarantinePath }

    public init(directory: String, currency: String = "USD") {
        file = CurrencyFile(directory: directory, fileName: Self.fileName, currency: currency, readLimit: Self.readLimit, holding: "daily bars")
    }

    public func load() throws(StoreError) -> StoredDaily { try file.load() }

    public func save(_ daily: DailyHistory) throws(StoreError) { try file.save(daily) }
}
