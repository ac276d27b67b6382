#if canImport(Glibc)
import Glibc
#endif

/// For `--check-config`: can this directory be used, or created, by the user running the check?
public enum DirectoryCheck {
    /// A sentence saying how it stands; `usable` false when the daemon would fail on it.
    public static func check(_ directory: String) -> (usable: Bool, verdict: String) {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { return (false, "\(directory) exists but is not a directory") }
            guard access(directory, W_OK | X_OK) == 0 else {
                return (false, "\(directory) is not writable by this user: \(String(cString: strerror(errno)))")
            }
            return (true, "\(directory) is writable")
        }
        var ancestor = directory
        while let slash = ancestor.lastIndex(of: "/") {
            ancestor = slash == ancestor.startIndex ? "/" : String(ancestor[..<slash])
            if stat(ancestor, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return (false, "\(directory) cannot be created: \(ancestor) is not a directory") }
                guard access(ancestor, W_OK | X_OK) == 0 else {
                    return (false, "\(directory) cannot be created: \(ancestor) is not writable by this user")
                }
                return (true, "\(directory) will be created (in \(ancestor))")
            }
            if ancestor == "/" { break }
        }
        return (false, "\(directory) cannot be created: no existing parent directory")
    }

    /// Whether the daemon could listen at `path`: nothing there yet, or a socket (a stale one
    /// is replaced; a live daemon's is found at start). Anything else would stop the start.
    public static func socketPath(_ path: String) -> (usable: Bool, verdict: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return (true, "\(path) will be created") }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            return (false, "\(path) exists and is not a socket; remove it or choose another path with --socket")
        }
        return (true, "\(path) is a socket (a stale one is replaced at start)")
    }
}
