/// UTF-8 checked as it arrives, fragment by fragment (RFC 6455, 8.1: a text message that is not
/// UTF-8 fails the connection, at the first byte that shows it). Rejects what Unicode does:
/// overlong forms, surrogates, code points past U+10FFFF, stray continuation bytes. ASCII, which
/// is every venue's JSON, takes one comparison a byte.
struct UTF8Validation {
    /// Continuation bytes the current character still needs.
    private var remaining = 0
    /// The range the next byte must fall in (narrower than 80...BF right after some leads).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether every byte so far may start or continue valid UTF-8.
    mutating func accepts(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes {
            if remaining == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: (remaining, lower, upper) = (1, 0x80, 0xBF)
                case 0xE0: (remaining, lower, upper) = (2, 0xA0, 0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: (remaining, lower, upper) = (2, 0x80, 0xBF)
                case 0xED: (remaining, lower, upper) = (2, 0x80, 0x9F)
                case 0xF0: (remaining, lower, upper) = (3, 0x90, 0xBF)
                case 0xF1...0xF3: (remaining, lower, upper) = (3, 0x80, 0xBF)
                case 0xF4: (remaining, lower, upper) = (3, 0x80, 0x8F)
                default: return false
                }
            } else {
                guard byte >= lower && byte <= upper else { return false }
                remaining -= 1
                (lower, upper) = (0x80, 0xBF)
            }
        }
        return true
    }

    /// Whether the text ended on a whole character.
    var isComplete: Bool { remaining == 0 }
}
