#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
    public var quarantinePath: String { path + ".corrupt" }

    public init(directory: String, currency: String = "USD") {
        self.directory = directory
        self.currency = currency
    }

    public func load() throws(StoreError) -> StoredHistory {
        switch try FileSystem.read(path, limit: Self.readLimit, followSymlinks: false) {
        case .missing: return .none
        case .tooLarge: return try quarantine(reason: "file is larger than \(Self.readLimit / 1024 / 1024) MiB")
        case .notAFile(let kind): return try quarantine(reason: "it is \(kind), not a file")
        case .contents(let bytes):
            if let other = HistoryDocument.currency(of: bytes), other != currency {
                let aside = path + "." + other
                guard rename(path, aside) == 0 else {
                    throw StoreError(operation: "move the \(other) history aside to", path: aside, errno: errno)
                }
                return .otherCurrency(other, movedTo: aside)
            }
            do {
                return .history(try HistoryDocument.decode(bytes))
            } catch {
                return try quarantine(reason: error.description)
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

    private func quarantine(reason: String) throws(StoreError) -> StoredHistory {
        guard rename(path, quarantinePath) == 0 else {
            throw StoreError(operation: "move the unreadable history aside to", path: quarantinePath, errno: errno)
        }
        return .quarantined(reason: reason, movedTo: quarantinePath)
    }
}
