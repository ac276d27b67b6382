extension Request {
    /// A request and the currency it names (`price EUR`, `history EUR 24h`); nil for the primary
    /// currency, as every request of protocol 1 asks.
    public struct Addressed: Sendable, Hashable {
        public let request: Request
        /// An ISO 4217 code in upper case.
        public let currency: String?

        public init(_ request: Request, currency: String? = nil) {
            self.request = request
            self.currency = currency
        }

        /// `watch *`'s currency: every currency served.
        public static let everyCurrency = "*"

        /// Parses one request line without its LF; a trailing CR is accepted too. A currency
        /// is the word after `status`, `price`, `sources`, `history` or `watch`, an ISO 4217
        /// code in either case; `watch *` follows every currency.
        public static func parse(_ line: some Collection<UInt8>) -> Result<Addressed, ErrorReply> {
            Request.words(line).flatMap { words in
                if words == ["watch", everyCurrency] { return .success(Addressed(.watch, currency: everyCurrency)) }
                guard words.count > 1, let currency = Currency(code: words[1]) else {
                    return Request.parse(words: words[...]).map { Addressed($0) }
                }
                guard Request.addressable.contains(words[0]) else { return Request.parse(words: words[...]).map { Addressed($0) } }
                return Request.parse(words: [words[0]] + words.dropFirst(2)).map { Addressed($0, currency: currency.code) }
            }
        }

        /// The request as sent by a client, terminator included.
        public var line: String {
            guard let currency else { return request.line }
            let line = request.line
            let word = request.word
            return word + " " + currency + line.dropFirst(word.utf8.count)
        }
    }
}

extension ErrorReply {
    /// A request for a currency the daemon does not serve.
    public static func notServed(_ currency: String, served: [String]) -> ErrorReply {
        ErrorReply(code: "currency", message: "btcpriced serves \(served.joined(separator: ", ")), not \(currency); add it to BTCPRICED_CURRENCIES to serve it")
    }
}
