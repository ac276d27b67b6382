import AsyncHTTPClient
import DaemonConfig
import ExchangeHTTP
import Exchanges
import FakeExchange
import Foundation
import PriceCore
import Streams
import Testing

/// The catalog is the one place a venue is described: settings, defaults, docs and the wiring
/// follow from its entries, and an entry plus its parsers is all a new venue needs.
@Suite("Venue catalog")
struct VenueCatalogTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func read(_ relative: String) throws -> String {
        try String(contentsOfFile: Self.repository + "/" + relative, encoding: .utf8)
    }

    /// A venue that exists only in this test: Bitstamp's parser under another name and path, as a
    /// contributor would add one (CONTRIBUTING.md).
    static let newcomer = Venue(
        name: "newcomer",
        currencies: ["USD", "EUR"],
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_NEWCOMER_URL", defaultURL: "https://api.newcomer.example"),
            symbol: { "btc" + $0.currency.lowercased() }, path: { "/api/v2/ticker/btc\($0.currency.lowercased())/" },
            limits: { _, _ in SourceLimits(minimumInterval: .seconds(3)) },
            parse: { response, options throws(FetchFailure) in try BitstampAPI.parse(response, currency: options.currency) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_NEWCOMER_STREAM_URL", defaultURL: "wss://ws.newcomer.example"),
            symbol: { KrakenStream.symbol(currency: $0.currency) }, greetings: { [KrakenStream.subscription(symbols: $0)] },
            parser: { symbols in { frame throws(FetchFailure) in try KrakenStream.parse(frame, symbols: symbols) } }))

    @Test func everyVenueSettingIsKnownAndDocumentedWithItsDefault() throws {
        let file = try read("config/btcpriced.conf"), page = try read("docs/man/btcpriced.conf.5.scd")
        for venue in Venue.catalog {
            for url in [venue.rest.url] + [venue.stream?.url].compactMap({ $0 }) {
                #expect(SettingKey(rawValue: url.key) != nil, "\(url.key) is not a setting")
                #expect(file.contains("#\(url.key)=\(url.defaultURL)\n"), "config/btcpriced.conf lacks #\(url.key)=\(url.defaultURL)")
                #expect(page.contains(url.key), "btcpriced.conf(5) lacks \(url.key)")
            }
            for setting in venue.settings {
                #expect(SettingKey(rawValue: setting.key) != nil, "\(setting.key) is not a setting")
                #expect(file.contains("#\(setting.key)=\(setting.defaultValue)\n"), "config/btcpriced.conf lacks #\(setting.key)=\(setting.defaultValue)")
                #expect(page.contains("*\(setting.key)*="), "btcpriced.conf(5) lacks \(setting.key)")
                if let fileKey = setting.fileKey {
                    #expect(file.contains("#\(fileKey)=") && page.contains("*\(fileKey)*="), "\(fileKey) is not documented")
                }
            }
        }
        #expect(SettingKey(rawValue: "BTCPRICED_KRAKEN_STREAM_URLS") == nil)
    }

    @Test func settingsFollowTheCatalog() throws {
        let settings = try SettingsLoader.load(.init())
        #expect(settings.sources == Venue.catalog.filter(\.inDefaultChain).map(\.name), "the default chain is the catalog's order, but for venues asked only when named")
        for venue in Venue.catalog {
            #expect(settings.restURL(venue) == venue.rest.url.defaultURL)
            #expect(settings.streamURL(venue) == venue.stream?.url.defaultURL)
        }
        let streaming = Venue.catalog.filter { $0.stream != nil }.map(\.name.rawValue)
        #expect(StreamChoice.choices() == ["auto", "off"] + streaming)
        let moved = try SettingsLoader.load(.init(environment: ["BTCPRICED_BITSTAMP_URL": "http://127.0.0.1:9"]))
        #expect(moved.restURL(.bitstamp) == "http://127.0.0.1:9")
        #expect(moved.restURL(.kraken) == Venue.kraken.rest.url.defaultURL)
    }

    @Test func aNewEntryAloneIsConfigurable() throws {
        let catalog = Venue.catalog + [Self.newcomer]
        let file = "BTCPRICED_NEWCOMER_URL=http://127.0.0.1:9\nBTCPRICED_SOURCES=newcomer,kraken\n"
        let settings = try SettingsLoader.load(.init(environment: ["BTCPRICED_STREAM": "NewComer"], file: ("/etc/btcpriced/btcpriced.conf", file),
                                                     catalog: catalog))
        #expect(settings.sources == ["newcomer", "kraken"], "BTCPRICED_SOURCES knows the new entry")
        #expect(settings.restURL(Self.newcomer) == "http://127.0.0.1:9", "its URL setting comes from the config file")
        #expect(settings.streamURL(Self.newcomer) == "wss://ws.newcomer.example", "its stream URL keeps the entry's default")
        #expect(settings.stream == .only(Self.newcomer), "BTCPRICED_STREAM names it")
        #expect(settings.stream.venues(among: settings.sources, in: settings.catalog) == [Self.newcomer])
        #expect(StreamChoice.choices(in: catalog).last == "newcomer")
        // Without the entry, the same file is refused at its key, as any unknown setting is.
        let refused = #expect(throws: ConfigError.self) {
            try SettingsLoader.load(.init(file: ("/etc/btcpriced/btcpriced.conf", file)))
        }
        #expect(refused?.description == "/etc/btcpriced/btcpriced.conf:1: unknown setting BTCPRICED_NEWCOMER_URL",
                "got: \(refused?.description ?? "no error")")
    }

    /// A newcomer that needs a key and lets the user pick a symbol, as a contributor would add one.
    static let keyedNewcomer = Venue(
        name: "keyed",
        currencies: ["USD"],
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_KEYED_URL", defaultURL: "https://api.keyed.example"),
            symbol: { $0.value(keyedSymbol) }, path: { "/api/v2/ticker/\($0.value(keyedSymbol).lowercased())/" },
            limits: { options, _ in SourceLimits(minimumInterval: .seconds(1), dailyCalls: options.number(keyedBudget)) },
            headers: { options in options.given(keyedKey).map { ["x-api-key": $0] } ?? [:] },
            parse: { response, options throws(FetchFailure) in try BitstampAPI.parse(response, currency: options.currency) }),
        settings: [keyedSymbol, keyedKey, keyedBudget])
    static let keyedSymbol = VenueSetting(key: "BTCPRICED_KEYED_SYMBOL", defaultValue: "BTCUSD", kind: .symbol)
    static let keyedKey = VenueSetting(key: "BTCPRICED_KEYED_API_KEY", kind: .apiKey(credential: "keyed-api-key"))
    static let keyedBudget = VenueSetting(key: "BTCPRICED_KEYED_DAILY_CALLS", defaultValue: "1000", kind: .wholeNumber(1...5000))

    @Test func aNewEntryWithAKeyAndASymbolNeedsNothingElse() throws {
        let catalog = Venue.catalog + [Self.keyedNewcomer]
        let file = "BTCPRICED_SOURCES=keyed,kraken\nBTCPRICED_KEYED_SYMBOL=BTCUSDC\nBTCPRICED_KEYED_DAILY_CALLS=864\n"
        let keyless = try SettingsLoader.load(.init(file: ("/etc/btcpriced/btcpriced.conf", file), catalog: catalog))
        #expect(keyless.value(Self.keyedSymbol) == "BTCUSDC" && keyless.value(Self.keyedBudget) == "864")
        let skipped = try SourcePlan(keyless)
        #expect(skipped.active.map(\.name) == ["kraken"])
        #expect(skipped.skipped.map(\.reason) == ["no API key: set BTCPRICED_KEYED_API_KEY_FILE (or the systemd credential keyed-api-key)"],
                "\(skipped.skipped.map(\.reason))")

        let credentials = ["CREDENTIALS_DIRECTORY": "/run/credentials/btcpriced.service"]
        let keyed = try APIKeyResolver.resolve(try SettingsLoader.load(.init(environment: credentials, file: ("/etc/btcpriced/btcpriced.conf", file),
                                                                             catalog: catalog)),
                                               environment: credentials) { path in path.hasSuffix("/keyed-api-key") ? "k-123\n" : nil }
        let plan = try SourcePlan(keyed)
        #expect(plan.active.map(\.name) == ["keyed", "kraken"], "the credential enables it")
        #expect(Self.keyedNewcomer.rest.headers(keyed.venueOptions) == ["x-api-key": "k-123"])
        #expect(Self.keyedNewcomer.rest.symbol(keyed.venueOptions) == "BTCUSDC")
        #expect(plan.limits(Self.keyedNewcomer).pace == .seconds(100), "864 calls a day")
        #expect(plan.description.contains("keyed budget: 864 calls a day (at most one every 100s); API key set"), "\(plan.description)")
        #expect(!plan.description.contains("k-123"), "the key itself is never shown")
        #expect(Self.keyedNewcomer.hint(for: .unauthorized("bad key")) == "; check the key in BTCPRICED_KEYED_API_KEY_FILE (or the credential keyed-api-key). Not asking it again for 10m")
        #expect(Self.keyedNewcomer.hint(for: .wrongSymbol(expected: "BTCUSDC", got: "BTCUSD")) == "; check BTCPRICED_KEYED_SYMBOL")

        let refused = #expect(throws: ConfigError.self) {
            try SettingsLoader.load(.init(environment: ["BTCPRICED_KEYED_DAILY_CALLS": "9000"], catalog: catalog))
        }
        #expect(refused?.description.contains("environment variable BTCPRICED_KEYED_DAILY_CALLS") == true, "\(refused?.description ?? "no error")")
    }

    /// The reference rate stands in only where no market exists: never beside a market, never
    /// for a currency the user's chain leaves out but another market trades.
    @Test func theReferenceRateStandsInOnlyForACurrencyNoMarketTrades() throws {
        let koruna = try SourcePlan(try SettingsLoader.load(.init(environment: ["BTCPRICED_CURRENCY": "CZK"])))
        #expect(koruna.active.map(\.name) == ["coinbase-rates"] && koruna.skipped.allSatisfy(\.unsupported), "\(koruna.active)")
        #expect(koruna.configured.last == "coinbase-rates", "its row follows BTCPRICED_SOURCES' in btcctl sources: \(koruna.configured)")
        #expect(koruna.notices.last?.text == "no market btcpriced knows trades BTC/CZK: CZK comes from coinbase-rates, "
                + "a reference rate (a conversion, not a trade) served under that name", "\(koruna.notices.map(\.text))")
        for code in ["USD", "EUR", "JPY", "CHF"] {
            let plan = try SourcePlan(try SettingsLoader.load(.init(environment: ["BTCPRICED_CURRENCY": code])))
            #expect(plan.referenceReason == nil && !plan.active.contains(.coinbaseRates), "\(code): \(plan.active)")
        }
        let refused = #expect(throws: ConfigError.self) {
            try SourcePlan(try SettingsLoader.load(.init(environment: ["BTCPRICED_CURRENCY": "GBP", "BTCPRICED_SOURCES": "binance"])))
        }
        #expect(refused?.description.contains("venues that quote GBP: coinbase, kraken, bitstamp, cryptocompare, mempool. Set") == true,
                "a chain that leaves the markets out is the user's to fix, and the reference is no market: \(refused?.description ?? "no error")")
        let named = try SourcePlan(try SettingsLoader.load(.init(environment: ["BTCPRICED_SOURCES": "kraken,coinbase-rates"])))
        #expect(named.active.map(\.name) == ["kraken", "coinbase-rates"] && named.referenceReason == nil, "named, it is a last resort like any source")
    }

    @Test func aNewEntryAloneAsksItsVenueOverHTTP() async throws {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        exchange.set(.bitstamp, .price("97123.45"))
        let client = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup)
        defer { Task { try? await client.shutdown() } }
        let source = Self.newcomer.source(baseURL: exchange.baseURL, VenueOptions(), client: client, timeout: .seconds(5), userAgent: "test")
        let quote = try await source.fetchQuote()
        #expect(source.name == "newcomer")
        #expect(source.limits.minimumInterval == .seconds(3))
        #expect(quote.price.description == "97123.45")
        #expect(quote.quoteAsset == "USD")
        #expect(exchange.requestCount(.bitstamp) == 1)
    }

    /// The first trade ends the wait; a stream that never sends one would hang: the limit catches it.
    @Test(.timeLimit(.minutes(1))) func aNewEntryAloneStreamsFromItsVenue() async throws {
        let exchange = try await FakeExchange.start()
        defer { Task { await exchange.shutdown() } }
        let stream = try #require(VenueStream(venue: Self.newcomer, url: "ws://127.0.0.1:\(exchange.port)/v2"))
        let (trades, continuation) = AsyncStream.makeStream(of: SourceQuote.self)
        let task = Task {
            let ending = await stream.run(opened: {}, received: { events in
                for case .trade(let quote, _) in events { continuation.yield(quote) }
            }) as StreamLink<ContinuousClock.Instant>.Ending
            continuation.finish()
            return ending
        }
        var iterator = trades.makeAsyncIterator()
        let first = await iterator.next()
        task.cancel()
        let ending = await task.value
        let quote = try #require(first, "the fake Kraken stream ended without a trade: \(ending)")
        #expect(quote.quoteAsset == "USD")
        #expect(!quote.price.description.isEmpty)
        #expect(Venue.bitstamp.stream == nil && VenueStream(venue: .bitstamp, url: "ws://127.0.0.1:9") == nil, "a venue without a stream makes none")
    }
}
