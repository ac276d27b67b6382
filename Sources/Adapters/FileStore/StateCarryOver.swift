import Glibc
import PriceCore

/// A single-currency install's files carried into the directory of the currency they were kept
/// in, the first time the daemon serves several (`BTCPRICED_CURRENCIES`): nothing is lost and
/// no step is by hand. The venues' restraints (`sources.json`) hold for every currency, so each
/// other currency's directory gets a copy: a restart never asks a resting venue early.
public enum StateCarryOver {
    static let names = [FileQuoteStore.fileName, FileHistoryStore.fileName, FileDailyStore.fileName, FileRestraintStore.fileName]
    /// Larger files are not ours; the stores read within the same bounds.
    static let readLimit = 2 * 1024 * 1024

    /// Moves the files `directory` holds itself into `directories[currency]`, the directory of
    /// the currency they were kept in, when that one holds none yet. Returns what it did, for
    /// the log; nil when there was nothing to carry.
    public static func carry(from directory: String, into directories: [String: String]) throws(StoreError) -> String? {
        let present = names.filter { exists(directory + "/" + $0) }
        guard !present.isEmpty else { return nil }
        guard let currency = try keptCurrency(in: directory, served: Set(directories.keys)) else {
            return "left \(present.joined(separator: ", ")) in \(directory): kept in a currency BTCPRICED_CURRENCIES does not list"
        }
        guard let target = directories[currency] else { return nil }
        try FileSystem.makeDirectories(target, mode: 0o755)
        guard names.allSatisfy({ !exists(target + "/" + $0) }) else { return nil }
        if present.contains(FileRestraintStore.fileName) {
            try copyRestraints(from: directory, to: directories.filter { $0.key != currency }.map(\.value))
        }
        for name in present where rename(directory + "/" + name, target + "/" + name) != 0 {
            throw StoreError(operation: "move", path: directory + "/" + name, errno: errno)
        }
        try FileSystem.syncDirectory(containing: target + "/" + names[0])
        try FileSystem.syncDirectory(containing: directory + "/" + names[0])
        return "carried \(present.joined(separator: ", ")) of the single-currency install (\(currency)) into \(target)"
    }

    /// The currency the files were kept in: the history's or the days' header, else the saved
    /// quote's (a stablecoin market, `USDT`, counting as USD); nil when it is none of `served`.
    static func keptCurrency(in directory: String, served: Set<String>) throws(StoreError) -> String? {
        var named: [String] = []
        if case .contents(let bytes) = try FileSystem.read(directory + "/" + FileHistoryStore.fileName, limit: readLimit),
           let code = HistoryDocument.currency(of: bytes) { named.append(code) }
        if case .contents(let bytes) = try FileSystem.read(directory + "/" + FileDailyStore.fileName, limit: readLimit),
           let code = DailyDocument.currency(of: bytes) { named.append(code) }
        if case .contents(let bytes) = try FileSystem.read(directory + "/" + FileQuoteStore.fileName, limit: readLimit),
           let quote = try? QuoteDocument.decode(bytes) {
            named.append(quote.currency.hasPrefix("USD") ? "USD" : quote.currency)
        }
        return named.first.flatMap { served.contains($0) ? $0 : nil }
    }

    private static func copyRestraints(from directory: String, to others: [String]) throws(StoreError) {
        guard case .contents(let bytes) = try FileSystem.read(directory + "/" + FileRestraintStore.fileName, limit: readLimit) else { return }
        for other in others where !exists(other + "/" + FileRestraintStore.fileName) {
            try FileSystem.makeDirectories(other, mode: 0o755)
            try FileSystem.writeDurably(bytes, to: other + "/" + FileRestraintStore.fileName,
                                        via: other + "/" + FileRestraintStore.tempPrefix + String(getpid()), mode: 0o644)
        }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
