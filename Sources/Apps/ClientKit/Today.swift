#if canImport(Glibc)
import Glibc
#endif

/// Today's UTC day by the host's clock, for the ranges btcctl asks by date.
enum Today {
    static func day() -> Int64 {
        let seconds = Int64(time(nil))
        return seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }
}
