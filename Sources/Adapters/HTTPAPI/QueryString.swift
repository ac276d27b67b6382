/// A request target split into its path and its query's parameters, percent-decoded. Only what
/// the routes need: no `+` for space (the values taken are codes and numbers), and a parameter
/// given twice keeps its first value.
struct RequestTarget: Sendable, Equatable {
    let path: String
    let parameters: [String: String]

    init(_ uri: String) {
        // Most targets are a plain path: nothing to split or decode.
        if !uri.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "%") }) {
            path = uri
            parameters = [:]
            return
        }
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? uri
        path = Self.decode(rawPath) ?? rawPath
        var parameters: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = Self.decode(keyValue[0]), parameters[key] == nil else { continue }
                parameters[key] = keyValue.count == 2 ? Self.decode(keyValue[1]) ?? "" : ""
            }
        }
        self.parameters = parameters
    }

    /// `%2C` → `,`; nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func decode(_ text: String) -> String? { decode(Substring(text)) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
