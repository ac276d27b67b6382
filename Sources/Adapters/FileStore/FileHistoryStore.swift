import PriceCore

/// Keeps `history.txt` (see HistoryDocument) in the state directory: new bars are appended, and
/// the whole file is replaced atomically and durably, like `quote.json`, now and then.
public struct FileHistoryStore: HistoryStore {
    public static let fileName = "history.txt"
    static let tempPrefix = CurrencyFile<HistoryDocument>.tempPrefix(of: fileName)
    /// Twice the longest plausible week; larger files are not ours.
    static let readLimit = 2 * 1024 * 1024

    let file: CurrencyFile<HistoryDocument>
    public var directory: String { file.directory }
    /// What the bars are counted in; a file in another currency is not loaded.
    public var currency: String { file.currency }
    public var path: String { file.path }
    public var quarantinePath: String { file.file.quarantinePath }

    public init(directory: String, currency: String = "USD") {
        file = CurrencyFile(directory: directory, fileName: Self.fileName, currency: currency, readLimit: Self.readLimit, holding: "history")
    }

    public func load() throws(StoreError) -> StoredHistory { try file.load() }

    public func save(_ history: PriceHistory) throws(StoreError) { try file.save(history) }

    /// Appends these bars, durably. Returns false when there is no file to append to.
    public func append(_ bars: ArraySlice<MinuteBar>) throws(StoreError) -> Bool {
        try FileSystem.appendDurably(Array(HistoryDocument.lines(bars).utf8), to: path)
    }
}
