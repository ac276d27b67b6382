#if canImport(Glibc)
import Glibc
#endif

/// The `sockaddr_un` of a filesystem path: the one place its fixed-size buffer is filled.
public enum UnixSocketAddress {
    /// The longest path a Unix socket can have (107 bytes on Linux).
    public static var maximumPathLength: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

    /// Calls `body` with the address of `path` and its length; nil when the path is too long.
    public static func with<Result>(path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result? {
        guard path.utf8.count <= maximumPathLength else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// connect(2) to `path`; -1 with ENAMETOOLONG when it cannot be an address.
    public static func connect(_ descriptor: Int32, to path: String) -> Int32 {
        with(path: path) { Glibc.connect(descriptor, $0, $1) } ?? { errno = ENAMETOOLONG; return -1 }()
    }

    /// bind(2) to `path`; -1 with ENAMETOOLONG when it cannot be an address.
    public static func bind(_ descriptor: Int32, to path: String) -> Int32 {
        with(path: path) { Glibc.bind(descriptor, $0, $1) } ?? { errno = ENAMETOOLONG; return -1 }()
    }
}
