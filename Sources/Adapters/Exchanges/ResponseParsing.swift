import JSONText
import PriceCore

/// An HTTP answer reduced to what the parsers need, so they stay pure and unit-testable.
public struct ExchangeResponse: Sendable {
    public let status: Int
    public let retryAfter: String?
    public let body: [UInt8]

    public init(status: Int, retryAfter: String? = nil, body: [UInt8]) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }

    public init(status: Int, retryAfter: String? = nil, body: String) {
        self.init(status: status, retryAfter: retryAfter, body: Array(body.utf8))
    }
}

enum ResponseChecks {
    /// Caps Retry-After so a buggy header cannot silence a source for days.
    static let longestRetryAfter = Duration.seconds(3600)

    /// Maps the status codes every exchange shares; returns only for 2xx.
    static func requireSuccess(_ response: ExchangeResponse) throws(FetchFailure) {
        switch response.status {
        case 200..<300: return
        case 429, 418: throw .rateLimited(retryAfter: retryAfter(response.retryAfter))
        case 451: throw .geoRestricted
        default: throw .httpStatus(response.status)
        }
    }

    static func retryAfter(_ header: String?) -> Duration? {
        guard let header, let seconds = Int64(header.trimmingSpaces), seconds >= 0 else { return nil }
        return min(.seconds(seconds), longestRetryAfter)
    }

    static func json(_ body: [UInt8]) throws(FetchFailure) -> JSONValue {
        let start = body.firstIndex { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if let start, body[start] == UInt8(ascii: "<") { throw .notJSON("HTML page") }
        guard start != nil else { throw .notJSON("empty body") }
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw .notJSON("invalid JSON: \(error.message)")
        }
    }

    static func price(_ value: JSONValue?, field: String) throws(FetchFailure) -> Price {
        guard let value else { throw .missingField(field) }
        // Binance sends a string, CryptoCompare a number; both arrive here as literal text.
        guard let text = value.stringValue ?? value.numberLiteral else { throw .missingField(field) }
        do {
            return try Price(parsing: text)
        } catch {
            throw .invalidPrice(error)
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map { index(after: $0) } ?? start
        return self[start..<max(start, end)]
    }
}
