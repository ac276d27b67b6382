#if canImport(Glibc)
import Glibc
#endif
import PosixFiles

/// Reads the config file and the API key file, with hints for those files (not the state
/// directory's): who must be able to read them, and what a wrong path looks like.
public enum ConfigTextFile {
    static let limit = 1024 * 1024

    /// The text, or nil when there is no file.
    public static func read(_ path: String) throws(ConfigError) -> String? {
        let found: FileRead
        do {
            found = try PosixFiles.read(path, limit: limit, allowDevices: true)
        } catch {
            let hint = error.errno == EACCES || error.errno == EPERM
                ? " (the daemon's user must be able to read it: check its owner and mode, e.g. root:root 0644 for the config file)" : ""
            throw ConfigError("cannot \(error.operation) \(path): \(error.reason)\(hint)")
        }
        switch found {
        case .missing: return nil
        case .tooLarge: throw ConfigError("cannot read \(path): larger than \(limit / 1024) KiB; is it the right file?")
        case .notAFile(let kind): throw ConfigError("cannot read \(path): it is \(kind), not a file")
        case .contents(let bytes):
            // Editors on other systems may start the file with a byte order mark, invisible in
            // any error about the first key: it is no part of the text.
            let text = String(decoding: bytes, as: UTF8.self)
            return text.unicodeScalars.first == "\u{FEFF}" ? String(String.UnicodeScalarView(text.unicodeScalars.dropFirst())) : text
        }
    }
}
