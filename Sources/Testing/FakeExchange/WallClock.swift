import Glibc

/// The fake's wall clock, for the time fields and headers real venues send.
enum WallClock {
    /// Now, in microseconds since the epoch.
    static func microseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    static func milliseconds() -> Int64 { microseconds() / 1000 }

    static func seconds() -> Int64 { microseconds() / 1_000_000 }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) this many seconds before now.
    static func httpDate(secondsAgo: Int) -> String {
        httpDate(seconds: seconds() - Int64(secondsAgo))
    }

    /// An IMF-fixdate for a second since the epoch.
    static func httpDate(seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"], months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
