import Glibc
import PosixFiles
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
        case .system(let operation, let path, let errno) where [EACCES, EPERM, EROFS].contains(errno):
            // Most often a normal user running the daemon with the system's default /run path.
            "cannot \(operation) \(path): \(String(cString: strerror(errno))); choose a socket path you can write with --socket PATH or BTCPRICED_SOCKET, for example $XDG_RUNTIME_DIR/btcpriced/btcpriced.sock"
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
        do { try PosixFiles.makeDirectories(String(path[..<slash]), mode: 0o755) } catch {
            throw .system(operation: error.operation, path: error.path, errno: error.errno)
        }
    }

    static func isAcceptingConnections(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return UnixSocketAddress.connect(fd, to: path) == 0
    }

    /// A listening socket at `path` (mode 0666), bound here rather than by NIO: NIO unlinks the
    /// path of a socket it bound when it closes it, even when the path names another file by then.
    static func listen(at path: String, backlog: Int32) throws(SocketFileError) -> (descriptor: Int32, identity: Identity?) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .system(operation: "create a socket for", path: path, errno: errno) }
        guard UnixSocketAddress.bind(descriptor, to: path) == 0 else {
            let code = errno
            close(descriptor)
            throw code == EADDRINUSE ? .inUse(path: path) : .system(operation: "bind", path: path, errno: code)
        }
        let identity = identity(of: path)
        do throws(SocketFileError) {
            try setWorldReadable(path)
            guard Glibc.listen(descriptor, backlog) == 0 else { throw .system(operation: "listen on", path: path, errno: errno) }
        } catch {
            close(descriptor)
            remove(path, ifStill: identity)
            throw error
        }
        return (descriptor, identity)
    }

    static func setWorldReadable(_ path: String) throws(SocketFileError) {
        guard chmod(path, 0o666) == 0 else { throw .system(operation: "set mode 0666 on", path: path, errno: errno) }
    }

    /// Which file a path names, so that shutdown removes our socket and nothing else.
    struct Identity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
    }

    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Unlinks `path` only while it is still the socket we bound: another daemon (or an
    /// operator) may have put its own file there since.
    static func remove(_ path: String, ifStill identity: Identity?) {
        guard let identity, self.identity(of: path) == identity else { return }
        unlink(path)
    }
}
