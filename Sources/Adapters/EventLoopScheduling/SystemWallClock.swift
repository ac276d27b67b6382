#if canImport(Glibc)
import Glibc
#endif
import PriceCore

/// The real-time clock (CLOCK_REALTIME), in whole milliseconds.
public struct SystemWallClock: WallClock {
    public init() {}

    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
