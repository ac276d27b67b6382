import PriceCore

/// A venue's WebSocket trade stream. One connection carries every pair asked
/// (`BTCPRICED_CURRENCIES`): each pair is named by the symbol the venue's messages carry, and
/// the path, the subscriptions and the parser take the list of them; one currency is a list of one.
public struct StreamEndpoint: Sendable {
    public typealias Parser = @Sendable ([UInt8]) throws(FetchFailure) -> [StreamEvent]

    public let url: URLSetting
    /// The pair's symbol in the stream's messages (`BTCUSDT`, `BTC-EUR`, `BTC/EUR`): what a
    /// quote's `symbol` says, so a connection's quotes can be told apart by pair.
    public let symbol: @Sendable (VenueOptions) -> String
    private let pathForSymbols: @Sendable ([String]) -> String
    private let greetingsForSymbols: @Sendable ([String]) -> [String]
    private let parserForSymbols: @Sendable ([String]) -> Parser

    /// `path`, `greetings` and `parser` take the symbols of every pair the connection carries.
    public init(url: URLSetting, symbol: @escaping @Sendable (VenueOptions) -> String,
                path: @escaping @Sendable ([String]) -> String = { _ in "" },
                greetings: @escaping @Sendable ([String]) -> [String] = { _ in [] },
                parser: @escaping @Sendable ([String]) -> Parser) {
        self.url = url
        self.symbol = symbol
        pathForSymbols = path
        greetingsForSymbols = greetings
        parserForSymbols = parser
    }

    /// The symbols of `currencies`' pairs, in their order.
    public func symbols(_ options: VenueOptions, currencies: [String]) -> [String] {
        currencies.map { symbol(options.inCurrency($0)) }
    }

    /// The path appended to the base URL (Binance names its streams there).
    public func path(_ options: VenueOptions, currencies: [String]? = nil) -> String {
        pathForSymbols(symbols(options, currencies: currencies ?? [options.currency]))
    }

    /// The messages sent once connected (subscriptions).
    public func greetings(_ options: VenueOptions, currencies: [String]? = nil) -> [String] {
        greetingsForSymbols(symbols(options, currencies: currencies ?? [options.currency]))
    }

    /// A parser bound to the pairs, so each message costs one call; a message about another
    /// pair is an error.
    public func parser(_ options: VenueOptions, currencies: [String]? = nil) -> Parser {
        parserForSymbols(symbols(options, currencies: currencies ?? [options.currency]))
    }
}
