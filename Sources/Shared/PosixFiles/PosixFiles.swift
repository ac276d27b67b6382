#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on a path; each adapter phrases it for its own operator (the state
/// directory's hints are not the config file's).
public struct PathError: Error, Sendable, Equatable {
    public let operation: String
    public let path: String
    public let errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var reason: String { String(cString: strerror(errno)) }
}

/// What a careful read found at a path.
public enum FileRead: Sendable, Equatable {
    case missing
    case tooLarge
    /// A directory, FIFO, socket or device where a file should be; says which.
    case notAFile(String)
    case contents([UInt8])
}

/// The few careful file operations the adapters share.
public enum PosixFiles {
    /// `mkdir -p`: every missing directory on the way, with `mode`.
    public static func makeDirectories(_ path: String, mode: mode_t) throws(PathError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw PathError(operation: "create directory", path: prefix, errno: errno)
            }
        }
    }

    /// Never blocks on a FIFO (O_NONBLOCK) and reads only regular files (fstat), plus character
    /// devices when `allowDevices` (`--config /dev/null`); with `followSymlinks: false`, a
    /// symlink is refused too. Stops reading past `limit`.
    public static func read(_ path: String, limit: Int, followSymlinks: Bool = true, allowDevices: Bool = false) throws(PathError) -> FileRead {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followSymlinks ? 0 : O_NOFOLLOW))
        if fd < 0 {
            if errno == ENOENT { return .missing }
            if errno == ELOOP && !followSymlinks { return .notAFile("a symbolic link") }
            throw PathError(operation: "open", path: path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PathError(operation: "stat", path: path, errno: errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFCHR where allowDevices: break
        case S_IFDIR: return .notAFile("a directory")
        case S_IFIFO: return .notAFile("a FIFO")
        case S_IFSOCK: return .notAFile("a socket")
        default: return .notAFile("a device or other special file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw PathError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return .contents(bytes) }
            bytes += chunk[0..<count]
            if bytes.count > limit { return .tooLarge }
        }
    }
}
