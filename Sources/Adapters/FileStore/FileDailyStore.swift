import Glibc
import PriceCore

/// Keeps `daily.txt` (see DailyDocument) in the state directory, replaced whole, atomically and
/// durably, like `quote.json`: once a day, when a day is made, and at shutdown.
public struct FileDailyStore: DailyStore {
    public static let fileName = "daily.txt"
    static let tempPrefix = ".daily.txt.tmp."
    /// Ten years are about 600 KB; larger files are not ours.
    static let readLimit = 2 * 1024 * 1024

    public let directory: String
    public let currency: String
    public var path: String { directory + "/" + Self.fileName }
    public var quarantinePath: String { file.quarantinePath }
    private var file: StateFile { StateFile(path: path, limit: Self.readLimit, holding: "daily bars") }

    public init(directory: String, currency: String = "USD") {
        self.directory = directory
        self.currency = currency
    }

    public func load() throws(StoreError) -> StoredDaily {
        switch try file.read() {
        case .missing: return .none
        case .notOurs(let reason): return .quarantined(reason: reason, movedTo: try file.quarantine())
        case .contents(let bytes):
            if let other = DailyDocument.currency(of: bytes), other != currency {
                return .otherCurrency(other, movedTo: try file.moveAside(currency: other))
            }
            do {
                return .daily(try DailyDocument.decode(bytes))
            } catch {
                return .quarantined(reason: error.description, movedTo: try file.quarantine())
            }
        }
    }

    public func save(_ daily: DailyHistory) throws(StoreError) {
        let temp = directory + "/" + Self.tempPrefix + String(getpid())
        try FileSystem.writeDurably(Array(DailyDocument.encode(daily, currency: currency).utf8), to: path, via: temp, mode: 0o644)
    }
}
