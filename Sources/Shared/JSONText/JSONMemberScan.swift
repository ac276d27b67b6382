/// A strict scan of one JSON object that builds no tree and allocates nothing, for a message
/// read many times a second where only a few members matter. It hands each member of the object,
/// and of objects directly inside it, to the caller as byte ranges. It gives up (nil) on what
/// it cannot check without allocating: an escape or a non-ASCII byte in a string, more than
/// `maximumMembers` members in one object, deep nesting. It also gives up on anything the full
/// parser would refuse, so the caller parses those with `JSONValue(parsing:)` to say why.
public enum JSONMemberScan {
    public enum Kind: Sendable, Equatable { case string, number, literal, object, array }

    /// A member: where it sits (0 for the outer object, 1 for an object inside it), its name and
    /// its value (a string's contents without the quotes).
    public struct Member {
        public let depth: Int
        public let name: Range<Int>
        public let value: Range<Int>
        public let kind: Kind
    }

    public static let maximumMembers = 24
    static let maximumDepth = 32

    /// Scans `bytes` as one JSON object; `visit` returns false to give up. Returns whether the
    /// whole text is a valid object that the scan could check.
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>, visit: (Member) -> Bool) -> Bool {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{"), scanner.object(depth: 0, visit: visit) else { return false }
        scanner.skipWhitespace()
        return scanner.index == bytes.count
    }

    /// Whether the bytes at `range` are `text`.
    public static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, at range: Range<Int>, equal text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return zip(bytes[range], expected).allSatisfy { $0 == $1 }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
        }

        /// At `{`; members at depth 0 and 1 go to `visit`.
        mutating func object(depth: Int, visit: (Member) -> Bool) -> Bool {
            guard depth < JSONMemberScan.maximumDepth else { return false }
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") { index += 1; return true }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: JSONMemberScan.maximumMembers) { names in
                var count = 0
                while true {
                    skipWhitespace()
                    guard peek == UInt8(ascii: "\""), let name = string(), count < names.count else { return false }
                    // The full parser refuses a repeated name; so does the scan.
                    for earlier in names[..<count] where bytes[earlier].elementsEqual(bytes[name]) { return false }
                    names[count] = name
                    count += 1
                    skipWhitespace()
                    guard peek == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipWhitespace()
                    let start = index
                    guard let kind = value(depth: depth + 1, visit: visit) else { return false }
                    if depth <= 1 {
                        let range = kind == .string ? start + 1..<index - 1 : start..<index
                        guard visit(Member(depth: depth, name: name, value: range, kind: kind)) else { return false }
                    }
                    skipWhitespace()
                    switch peek {
                    case UInt8(ascii: ","): index += 1
                    case UInt8(ascii: "}"): index += 1; return true
                    default: return false
                    }
                }
            }
        }

        mutating func value(depth: Int, visit: (Member) -> Bool) -> Kind? {
            guard let byte = peek else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth, visit: visit) ? .object : nil
            case UInt8(ascii: "["): return array(depth: depth) ? .array : nil
            case UInt8(ascii: "\""): return string() != nil ? .string : nil
            case UInt8(ascii: "t"): return literal("true") ? .literal : nil
            case UInt8(ascii: "f"): return literal("false") ? .literal : nil
            case UInt8(ascii: "n"): return literal("null") ? .literal : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard case .success(let number) = DecimalLiteral.scan(bytes, at: index) else { return nil }
                index = number.end
                return .number
            default: return nil
            }
        }

        mutating func array(depth: Int) -> Bool {
            guard depth < JSONMemberScan.maximumDepth else { return false }
            index += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipWhitespace()
                guard value(depth: depth + 1, visit: { _ in true }) != nil else { return false }
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return true
                default: return false
                }
            }
        }

        /// At `"`: the contents' range, if printable ASCII without escapes.
        mutating func string() -> Range<Int>? {
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                guard bytes[end] >= 0x20, bytes[end] < 0x80, bytes[end] != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            return start..<end
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let end = index + word.utf8CodeUnitCount
            guard end <= bytes.count, JSONMemberScan.bytes(bytes, at: index..<end, equal: word) else { return false }
            index = end
            return true
        }
    }
}
