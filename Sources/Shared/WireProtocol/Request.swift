/// Wire protocol v1: one request line in, one reply line out (or a stream, for `watch`).
public enum WireProtocol {
    public static let version = 1
    /// Longest accepted request line, terminator included.
    public static let maximumRequestLength = 256
}

public enum Request: String, Sendable, CaseIterable {
    case status, price, watch, ping, version, sources

    /// Parses one request line without its LF; a trailing CR is accepted too.
    public static func parse(_ line: some Collection<UInt8>) -> Result<Request, ErrorReply> {
        guard line.count < WireProtocol.maximumRequestLength else {
            return .failure(.badRequest("request longer than \(WireProtocol.maximumRequestLength) bytes"))
        }
        var bytes = ArraySlice(line)
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            return .failure(.badRequest("request is not printable ASCII"))
        }
        let word = String(decoding: bytes, as: UTF8.self)
        guard !word.isEmpty else { return .failure(.badRequest("empty request; try: status, price, watch, sources, ping, version")) }
        guard let request = Request(rawValue: word) else {
            return .failure(.badRequest("unknown request \"\(word.prefix(32))\"; try: status, price, watch, sources, ping, version"))
        }
        return .success(request)
    }

    /// The request as sent by a client, terminator included.
    public var line: String { rawValue + "\n" }
}
