#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WireProtocol

/// Why the server could not take its socket path. Each case tells the operator what to do.
public enum SocketFileError: Error, Equatable, CustomStringConvertible {
    case inUse(path: String)
    case notASocket(path: String)
    case pathTooLong(path: String, limit: Int)
    case system(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .inUse(let path):
            "another btcpriced is already listening on \(path); stop it first or choose another path with --socket"
        case .notASocket(let path):
            "\(path) exists and is not a socket; remove it or choose another path with --socket"
        case .pathTooLong(let path, let limit):
            "socket path \(path) is longer than the system limit of \(limit) bytes; choose a shorter path with --socket"
        case .system(let operation, let path, let errno):
            "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
        }
    }
}

/// Preparing and cleaning up the socket's path on the file system.
enum SocketFile {
    static var maximumPathLength: Int { UnixSocketAddress.maximumPathLength }

    /// Creates the parent directory, and removes a socket file left by a crashed daemon —
    /// but never one a live daemon still accepts on.
    static func prepare(_ path: String) throws(SocketFileError) {
        guard path.utf8.count <= maximumPathLength else { throw .pathTooLong(path: path, limit: maximumPathLength) }
        try makeParentDirectory(of: path)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .system(operation: "inspect", path: path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        if isAcceptingConnections(path) { throw .inUse(path: path) }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .system(operation: "remove the stale socket", path: path, errno: errno)
        }
    }

    static func makeParentDirectory(of path: String) throws(SocketFileError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path[..<slash].split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .system(operation: "create directory", path: prefix, errno: errno)
            }
        }
    }

    static func isAcceptingConnections(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return UnixSocketAddress.connect(fd, to: path) == 0
    }

    static func setWorldReadable(_ path: String) throws(SocketFileError) {
        guard chmod(path, 0o666) == 0 else { throw .system(operation: "set mode 0666 on", path: path, errno: errno) }
    }

    static func remove(_ path: String) {
        unlink(path)
    }
}
