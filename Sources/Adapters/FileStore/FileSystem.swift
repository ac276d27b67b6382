import Glibc
import PosixFiles

/// A failed file-system call, phrased for an operator: what, where, and the system's reason.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let errno: Int32

    public var description: String {
        let reason = String(cString: strerror(errno))
        var hint = ""
        if errno == EACCES || errno == EPERM || errno == EROFS {
            hint = " (check the owner and mode of the state directory, or set BTCPRICED_STATE_DIR)"
        } else if errno == ENOSPC {
            hint = " (the disk is full)"
        }
        return "cannot \(operation) \(path): \(reason)\(hint)"
    }
}

extension StoreError {
    init(_ error: PathError) { self.init(operation: error.operation, path: error.path, errno: error.errno) }
}

enum FileSystem {
    static func makeDirectories(_ path: String, mode: mode_t) throws(StoreError) {
        do { try PosixFiles.makeDirectories(path, mode: mode) } catch { throw StoreError(error) }
    }

    static func entries(of directory: String) throws(StoreError) -> [String] {
        guard let dir = opendir(directory) else { throw StoreError(operation: "list", path: directory, errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// See PosixFiles.read.
    static func read(_ path: String, limit: Int, followSymlinks: Bool = true, allowDevices: Bool = false) throws(StoreError) -> FileRead {
        do { return try PosixFiles.read(path, limit: limit, followSymlinks: followSymlinks, allowDevices: allowDevices) } catch { throw StoreError(error) }
    }

    /// The whole durable-replace dance. A crash at any point leaves either the old or the new
    /// file under `path`, complete; at worst a temp file remains, which `prepare()` removes.
    /// With `durable: false` the file is still replaced atomically (a reader sees the old or
    /// the new one), only not fsync'd: for files rewritten every few seconds that a crash may lose.
    static func writeDurably(_ bytes: [UInt8], to path: String, via temp: String, mode: mode_t, durable: Bool = true) throws(StoreError) {
        // A fresh file, never one that is there already: a symlink planted at the temp name is
        // removed, not followed, and if one reappears the write fails instead of overwriting.
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw StoreError(operation: "create", path: temp, errno: errno) }
        var closed = false
        defer { if !closed { close(fd); unlink(temp) } }
        // The umask may have narrowed the mode; readers of the state directory expect 0644.
        guard fchmod(fd, mode) == 0 else { throw StoreError(operation: "set the mode of", path: temp, errno: errno) }
        try writeAll(bytes, to: fd, path: temp, operation: "write")
        guard !durable || fsync(fd) == 0 else { throw StoreError(operation: "fsync", path: temp, errno: errno) }
        closed = true
        guard close(fd) == 0 else {
            unlink(temp)
            throw StoreError(operation: "close", path: temp, errno: errno)
        }
        guard rename(temp, path) == 0 else {
            let error = errno
            unlink(temp)
            throw StoreError(operation: "rename the new file onto", path: path, errno: error)
        }
        if durable { try syncDirectory(containing: path) }
    }

    /// Appends to an existing regular file (never creating one, never through a symlink) and
    /// fdatasyncs it. Returns false when the file is not there, so the caller writes it whole.
    static func appendDurably(_ bytes: [UInt8], to path: String) throws(StoreError) -> Bool {
        let fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return false }
            throw StoreError(operation: "open for appending", path: path, errno: errno)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw StoreError(operation: "stat", path: path, errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw StoreError(operation: "append to (not a regular file)", path: path, errno: EINVAL) }
        try writeAll(bytes, to: fd, path: path, operation: "append to")
        guard fdatasync(fd) == 0 else { throw StoreError(operation: "fdatasync", path: path, errno: errno) }
        return true
    }

    /// Writes every byte, through short writes and EINTR.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String, operation: String) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(operation: operation, path: path, errno: errno)
            }
            written += count
        }
    }

    static func syncDirectory(containing path: String) throws(StoreError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(operation: "open directory", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError(operation: "fsync directory", path: directory, errno: errno) }
    }
}

/// Replaces a file another program reads (node_exporter's textfile collector): a temp file in
/// the same directory, then a rename, so the reader never sees half a file.
public enum AtomicTextFile {
    public static func replace(_ path: String, with text: String) throws(StoreError) {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let temp = String(path[..<slash]) + "." + String(path[slash...]) + ".tmp." + String(getpid())
        try FileSystem.writeDurably(Array(text.utf8), to: path, via: temp, mode: 0o644, durable: false)
    }
}
