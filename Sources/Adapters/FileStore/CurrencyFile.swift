import Glibc
import PriceCore

/// A state file in a CurrencyDocument format: read within a limit, quarantined when it is not
/// ours, moved aside when in another currency, replaced whole atomically and durably.
struct CurrencyFile<Document: CurrencyDocument> {
    let directory: String
    let fileName: String
    let currency: String
    /// Larger files are not ours.
    let readLimit: Int
    /// What it holds, for messages ("history", "daily bars").
    let holding: String

    var path: String { directory + "/" + fileName }
    var file: StateFile { StateFile(path: path, limit: readLimit, holding: holding) }

    func load() throws(StoreError) -> Stored<Document.Value> {
        switch try file.read() {
        case .missing: return .none
        case .notOurs(let reason): return .quarantined(reason: reason, movedTo: try file.quarantine())
        case .contents(let bytes):
            if let other = Document.currency(of: bytes), other != currency {
                return .otherCurrency(other, movedTo: try file.moveAside(currency: other))
            }
            do {
                return .kept(try Document.decode(bytes))
            } catch {
                return .quarantined(reason: error.description, movedTo: try file.quarantine())
            }
        }
    }

    /// What a half-written copy of `fileName` starts with, so that start-up can clear leftovers.
    static func tempPrefix(of fileName: String) -> String { "." + fileName + ".tmp." }

    /// Written to `.NAME.tmp.PID` beside it, then renamed into place.
    func save(_ value: Document.Value) throws(StoreError) {
        let temp = directory + "/" + Self.tempPrefix(of: fileName) + String(getpid())
        try FileSystem.writeDurably(Array(Document.encode(value, currency: currency).utf8), to: path, via: temp, mode: 0o644)
    }
}
