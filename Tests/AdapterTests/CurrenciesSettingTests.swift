import DaemonConfig
import FileStore
import Foundation
import PriceCore
import Testing
import WireProtocol

@Suite("BTCPRICED_CURRENCIES: several currencies from one daemon")
struct CurrenciesSettingTests {
    func launch(_ environment: [String: String]) -> DaemonLaunch {
        DaemonLaunch(arguments: ["--config", "/dev/null"], environment: environment.merging(["BTCPRICED_STATE_DIR": "/var/lib/btcpriced"]) { $1 })
    }

    func failure(_ environment: [String: String]) -> String? {
        guard case .exit(let status, _, let errors) = launch(environment), status == 78 else { return nil }
        return errors.joined(separator: "\n")
    }

    @Test func theFirstCodeIsThePrimaryAndEachOtherHasItsOwnChain() throws {
        guard case .run(_, let settings, let plan, let companions) = launch(["BTCPRICED_CURRENCIES": "usd, EUR,JPY czk"]) else {
            Issue.record("the list did not bring a run")
            return
        }
        #expect(settings.servedCurrencies.map(\.code) == ["USD", "EUR", "JPY", "CZK"] && plan.settings.currency.code == "USD")
        #expect(companions.map(\.settings.currency.code) == ["EUR", "JPY", "CZK"])
        #expect(companions[1].active.map(\.name.rawValue) == ["kraken"], "only kraken lists BTC/JPY: \(companions[1].active)")
        #expect(companions[2].referenceReason != nil && companions[2].active.map(\.name.rawValue) == ["coinbase-rates"], "\(companions[2].active)")
        #expect(companions.allSatisfy { $0.settings.stream == settings.stream }, "every currency streams where its venues do")
        #expect(settings.stateDirectory(of: Currency(code: "EUR")!) == "/var/lib/btcpriced/eur")
    }

    /// A venue named for the stream that has no market in a currency: that currency polls, the others stream from it.
    @Test func aStreamVenueWithoutTheCurrencysMarketLeavesItPolling() throws {
        guard case .run(_, _, _, let companions) = launch(["BTCPRICED_CURRENCIES": "USD,EUR,JPY", "BTCPRICED_STREAM": "binance"]) else {
            Issue.record("the list did not bring a run")
            return
        }
        let streams = companions.map { "\($0.settings.currency.code): \($0.settings.stream)" }
        #expect(streams == ["EUR: \(StreamChoice.only(.binance))", "JPY: \(StreamChoice.off)"], "\(streams)")
        #expect(companions[1].currencyLine.hasSuffix("markets, over REST"), "\(companions[1].currencyLine)")
    }

    @Test func oneCurrencyKeepsTheStateDirectoryAsItWas() throws {
        guard case .run(_, let settings, _, let companions) = launch(["BTCPRICED_CURRENCY": "eur"]) else {
            Issue.record("BTCPRICED_CURRENCY did not bring a run")
            return
        }
        #expect(companions.isEmpty && settings.stateDirectory(of: settings.currency) == "/var/lib/btcpriced")
    }

    @Test func theListIsCheckedAsOneCurrencyIs() {
        let both = failure(["BTCPRICED_CURRENCY": "EUR", "BTCPRICED_CURRENCIES": "USD,EUR"])
        #expect(both?.contains("are both set") == true && both?.contains("remove one") == true, "\(String(describing: both))")
        let twice = failure(["BTCPRICED_CURRENCIES": "USD,EUR,usd"])
        #expect(twice?.contains("USD is listed twice") == true, "\(String(describing: twice))")
        let typo = failure(["BTCPRICED_CURRENCIES": "USD,EUT"])
        #expect(typo?.contains("BTCPRICED_CURRENCIES") == true && typo?.contains("not an ISO 4217 currency code") == true, "\(String(describing: typo))")
        let noVenue = failure(["BTCPRICED_CURRENCIES": "USD,JPY", "BTCPRICED_SOURCES": "binance,coinbase"])
        #expect(noVenue?.contains("BTCPRICED_CURRENCIES lists JPY") == true, "\(String(describing: noVenue))")
    }

    @Test func checkConfigSaysWhichVenuesServeEachCurrency() {
        let report = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/var/lib/btcpriced"]),
                                     environment: ["BTCPRICED_CURRENCIES": "GBP,CZK"])
        let lines = report.lines.joined(separator: "\n")
        #expect(lines.contains("currencies: GBP, CZK (the first is the primary"), "\(lines)")
        #expect(lines.contains("  GBP: coinbase (BTC-GBP), kraken (XBTGBP), bitstamp (btcgbp); markets, over REST and the stream; kept in /var/lib/btcpriced/gbp"), "\(lines)")
        #expect(lines.contains("  CZK: coinbase-rates (BTC-CZK rate); a reference rate"), "\(lines)")
    }
}

@Suite("A single-currency install's files carried into their currency's directory")
struct StateCarryOverTests {
    @Test func theFilesMoveToTheirCurrencyAndTheRestraintsAreCopiedToTheOthers() throws {
        let dir = TemporaryDirectory()
        let history = FileHistoryStore(directory: dir.path, currency: "EUR")
        try history.save(PriceHistory())
        try FileQuoteStore(directory: dir.path).save(sampleQuote)
        try FileRestraintStore(directory: dir.path).save([:])
        let note = try StateCarryOver.carry(from: dir.path, into: ["USD": dir.path + "/usd", "EUR": dir.path + "/eur"])
        #expect(note?.contains("(EUR) into \(dir.path)/eur") == true, "\(String(describing: note))")
        let top = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(top == ["eur", "usd"], "\(top)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/eur").sorted() == ["history.txt", "quote.json", "sources.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/usd") == ["sources.json"], "the venues' rests hold for USD too")
        #expect(try StateCarryOver.carry(from: dir.path, into: ["USD": dir.path + "/usd", "EUR": dir.path + "/eur"]) == nil, "a second start carries nothing")
    }

    @Test func filesOfACurrencyNotListedStayWhereTheyAre() throws {
        let dir = TemporaryDirectory()
        try FileHistoryStore(directory: dir.path, currency: "JPY").save(PriceHistory())
        let note = try StateCarryOver.carry(from: dir.path, into: ["USD": dir.path + "/usd", "EUR": dir.path + "/eur"])
        #expect(note?.contains("left history.txt") == true, "\(String(describing: note))")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/history.txt"))
    }

    @Test func aCurrencyThatAlreadyHasFilesIsNotOverwritten() throws {
        let dir = TemporaryDirectory()
        try FileQuoteStore(directory: dir.path).save(sampleQuote)
        try FileManager.default.createDirectory(atPath: dir.path + "/usd", withIntermediateDirectories: true)
        try FileQuoteStore(directory: dir.path + "/usd").save(sampleQuote)
        #expect(try StateCarryOver.carry(from: dir.path, into: ["USD": dir.path + "/usd", "EUR": dir.path + "/eur"]) == nil)
        #expect(FileManager.default.fileExists(atPath: dir.path + "/quote.json"), "left in place: nothing is lost")
    }
}
