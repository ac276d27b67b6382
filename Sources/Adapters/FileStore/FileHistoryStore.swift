import Glibc
import PriceCore

/// Keeps `history.txt` (see HistoryDocument) in the state directory: new bars are appended, and
/// the whole file is replaced atomically and durably, like `quote.json`, now and then.
public struct FileHistoryStore: HistoryStore {
    public static let fileName = "history.txt"
    static let tempPrefix = ".history.txt.tmp."
    /// Twice the longest plausible week; larger files are not ours.
    static let readLimit = 2 * 1024 * 1024

    public let directory: String
    /// What the bars are counted in; a file in another currency is not loaded.
    public let currency: String
    public var path: String { directory + "/" + Self.fileName }
    public var quarantinePath: String { file.quarantinePath }
    private var file: StateFile { StateFile(path: path, limit: Self.readLimit, holding: "history") }

    public init(directory: String, currency: String = "USD") {
        self.directory = directory
        self.currency = currency
    }

    public func load() throws(StoreError) -> StoredHistory {
        switch try file.read() {
        case .missing: return .none
        case .notOurs(let reason): return .quarantined(reason: reason, movedTo: try file.quarantine())
        case .contents(let bytes):
            if let other = HistoryDocument.currency(of: bytes), other != currency {
                return .otherCurrency(other, movedTo: try file.moveAside(currency: other))
            }
            do {
                return .history(try HistoryDocument.decode(bytes))
            } catch {
                return .quarantined(reason: error.description, movedTo: try file.quarantine())
            }
        }
    }

    public func save(_ history: PriceHistory) throws(StoreError) {
        let temp = directory + "/" + Self.tempPrefix + String(getpid())
        try FileSystem.writeDurably(Array(HistoryDocument.encode(history, currency: currency).utf8), to: path, via: temp, mode: 0o644)
    }

    /// Appends these bars, durably. Returns false when there is no file to append to.
    public func append(_ bars: ArraySlice<MinuteBar>) throws(StoreError) -> Bool {
        try FileSystem.appendDurably(Array(HistoryDocument.lines(bars).utf8), to: path)
    }
}
