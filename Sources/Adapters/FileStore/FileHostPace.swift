#if canImport(Glibc)
import Glibc
#endif
import PriceCore

/// The host-wide pace of each venue, in a directory every instance shares (`<venue>.pace`
/// holds the wall time of the last price fetch, in milliseconds; `<venue>.candles.pace` that of
/// the last candle request, which keeps a pace of its own). flock(2) makes a claim atomic
/// between instances; the section it guards is a read and a write of a few bytes.
public struct FileHostPace: HostPace {
    public let directory: String

    /// Creates the directory if needed and checks a pace file can be written there.
    public init(directory: String) throws(StoreError) {
        try FileSystem.makeDirectories(directory, mode: 0o755)
        self.directory = directory
        let probe = directory + "/.probe"
        let fd = open(probe, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw StoreError(operation: "create a pace file in", path: directory, errno: errno) }
        close(fd)
        unlink(probe)
    }

    /// A file that cannot be used allows the call: each instance still keeps its own pace.
    public func claim(_ source: SourceName, kind: RequestKind, pace: Duration, at wallTime: Timestamp) -> Bool {
        let path = directory + "/" + source.rawValue + (kind == .price ? "" : "." + kind.rawValue) + ".pace"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { return true }
        defer { close(fd) }  // also releases the lock
        guard flock(fd, LOCK_EX) == 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 24)
        let count = pread(fd, &buffer, buffer.count, 0)
        let now = wallTime.millisecondsSinceEpoch
        if count > 0, let last = Int64(String(decoding: buffer[..<count], as: UTF8.self)) {
            // A last call in the future means the clock was set back: the pace restarts now.
            if last <= now, now - last < pace.wholeMilliseconds { return false }
        }
        let text = Array(String(now).utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return true
    }
}
