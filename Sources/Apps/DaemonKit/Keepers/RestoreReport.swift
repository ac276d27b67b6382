import Logging

/// The lines every restore logs when its saved file cannot be used, written once: the file is
/// ignored (and moved aside, or rewritten), or cannot be read at all. Either way the daemon
/// starts without it and serves live prices; only the consequence differs per file.
struct RestoreReport {
    let logger: Logger
    let path: String

    /// The file was not ours: moved aside, or to be rewritten; `then` says which, and what follows.
    func ignoring(_ reason: any CustomStringConvertible, then: String) {
        logger.warning("ignoring unreadable \(path) (\(reason)); \(then)")
    }

    /// The read itself failed (permissions, I/O): says what to check.
    func cannotRead(_ what: String, _ error: any Error, then: String = "starting without it") {
        logger.error("cannot read \(what): \(error); \(then). Check \(path) (it should be a regular file the daemon can read and replace)")
    }
}
