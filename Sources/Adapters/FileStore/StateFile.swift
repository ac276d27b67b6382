import Glibc

/// One state file's careful read and its way aside, shared by the stores. A file that is too
/// large, not a file, or does not decode is moved to `.corrupt` rather than deleted, so an
/// operator can still look at it, and the daemon starts without it.
struct StateFile {
    enum Read {
        case missing
        case contents([UInt8])
        /// Not ours: moved aside by `quarantine()`, for this reason.
        case notOurs(reason: String)
    }

    let path: String
    /// Larger files are not ours.
    let limit: Int
    /// What it holds, for the error of a failed move: "quote", "history".
    let holding: String
    var quarantinePath: String { path + ".corrupt" }

    func read() throws(StoreError) -> Read {
        // Never through a symlink: the state directory is the daemon's alone.
        switch try FileSystem.read(path, limit: limit, followSymlinks: false) {
        case .missing: .missing
        case .tooLarge: .notOurs(reason: "file is larger than \(Self.size(limit))")
        case .notAFile(let kind): .notOurs(reason: "it is \(kind), not a file")
        case .contents(let bytes): .contents(bytes)
        }
    }

    /// Moves the file aside; returns where it went.
    func quarantine() throws(StoreError) -> String {
        guard rename(path, quarantinePath) == 0 else {
            throw StoreError(operation: "move the unreadable \(holding) aside to", path: quarantinePath, errno: errno)
        }
        return quarantinePath
    }

    /// Moves the file aside as kept in another currency (`history.txt.USD`); returns where it went.
    func moveAside(currency: String) throws(StoreError) -> String {
        let aside = path + "." + currency
        guard rename(path, aside) == 0 else {
            throw StoreError(operation: "move the \(currency) \(holding) aside to", path: aside, errno: errno)
        }
        return aside
    }

    private static func size(_ bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / 1024 / 1024) MiB" : "\(bytes / 1024) KiB"
    }
}
