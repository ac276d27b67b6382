#if canImport(Glibc)
import Glibc
#endif

/// An exclusive flock(2) on `btcpriced.lock` in the state directory, held for the life of the
/// process, so a second daemon on the same directory stops before it touches any file there.
public final class StateDirectoryLock: Sendable {
    public static let fileName = "btcpriced.lock"
    private let descriptor: Int32

    public enum Failure: Error, CustomStringConvertible {
        case held(path: String)
        case store(StoreError)

        public var description: String {
            switch self {
            case .held(let path):
                "another btcpriced is already using \(path); stop it first, or give this one its own BTCPRICED_STATE_DIR (and BTCPRICED_SOCKET)"
            case .store(let error): error.description
            }
        }
    }

    /// Creates the directory if needed, then takes the lock without waiting.
    public init(directory: String) throws(Failure) {
        do { try FileSystem.makeDirectories(directory, mode: 0o755) } catch { throw .store(error) }
        let path = directory + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw .store(StoreError(operation: "open the lock file", path: path, errno: errno)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { throw .held(path: directory) }
            throw .store(StoreError(operation: "lock", path: path, errno: error))
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
