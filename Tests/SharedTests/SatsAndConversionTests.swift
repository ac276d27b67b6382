import ClientKit
import JSONText
import Testing
import WireProtocol

/// Sats per unit and `btcctl convert`, on exact decimal text: each figure against one worked
/// out by hand.
@Suite("Sats and conversions, exactly")
struct SatsAndConversionTests {
    @Test("sats per unit: whole sats from 100 up, else 3 significant digits, half to even", arguments: [
        ("114459.80", "874"),          // 873.6602…
        ("80000", "1250"),             // exact
        ("64000", "1562"),             // exactly 1562.5: half to even goes down
        ("320000", "312"),             // exactly 312.5
        ("17000000", "5.88"),          // yen: 5.882…
        ("15234567", "6.56"),          // 6.5639…
        ("1600000", "62.5"),           // exactly 62.5, three digits already
        ("2700000000", "0.0370"),      // dong: 0.037037…
        ("150000000", "0.667"),        // 0.6666…
        ("100000000", "1.00"),
        ("0.5", "200000000"),
    ])
    func satsPerUnit(price: String, expected: String) {
        #expect(SatsText.perUnit(price: price) == expected, "\(price) → \(String(describing: SatsText.perUnit(price: price)))")
    }

    @Test func satsNeedAPositivePrice() {
        #expect(SatsText.perUnit(price: "0") == nil)
        #expect(SatsText.perUnit(price: "-1") == nil)
        #expect(SatsText.perUnit(price: "abc") == nil)
        #expect(SatsText.perUnitLabel(currency: "USD") == "sats/$")
        #expect(SatsText.perUnitLabel(currency: "CHF") == "sats/CHF")
        #expect(SatsText.perUnitLabel(currency: "USDT") == "sats/USDT")
    }

    @Test func exactArithmeticBeyondAnInt128() {
        let big = ExactDecimal("21000000.12345678")!, yen = ExactDecimal("17000000.123456789")!
        #expect(big.multiplied(by: yen).text == "357000004691357.84424157763907942")
        #expect(ExactDecimal("1")!.divided(by: ExactDecimal("3")!, places: 5)?.text == "0.33333")
        #expect(ExactDecimal("2")!.divided(by: ExactDecimal("3")!, places: 5)?.text == "0.66667")
        #expect(ExactDecimal("0.125")!.rounded(places: 2).text == "0.12", "a tie goes to the even digit")
        #expect(ExactDecimal("0.135")!.rounded(places: 2).text == "0.14")
        #expect(ExactDecimal("5")!.divided(by: ExactDecimal("0")!, places: 2) == nil)
        #expect(ExactDecimal("0.050")!.trimmedText == "0.05")
        #expect(ExactDecimal(String(repeating: "9", count: 61)) == nil, "text is bounded")
    }

    @Test func statusJSONCarriesSatsPerUnit() throws {
        let status = StatusMessage(price: "114459.80", symbol: "BTCUSDT", source: "binance", timestamp: nil, ageMilliseconds: nil,
                                   state: .fresh, lastError: nil, version: "0.1.0")
        #expect(try JSONValue(parsing: String(status.line.dropLast()))["sats_per_unit"] == .string("874"))
        #expect(Template.render("{sats} sats", status) == "874 sats")
        let empty = StatusMessage(price: nil, symbol: nil, source: nil, timestamp: nil, ageMilliseconds: nil, state: .nodata, lastError: nil, version: "0.1.0")
        #expect(try JSONValue(parsing: String(empty.line.dropLast()))["sats_per_unit"] == .null)
    }

    @Test func unitSatsOnEveryHumanForm() throws {
        let dollars = StatusMessage(price: "114459.80", currency: "USD", symbol: "BTC-USD", source: "coinbase", timestamp: "2026-11-21T16:00:00.123Z",
                                    ageMilliseconds: 400, state: .fresh, lastError: nil, version: "0.1.0")
        #expect(HumanFormat.status(dollars, unit: .sats).hasPrefix("BTC/USD  874 sats/$\n"), "\(HumanFormat.status(dollars, unit: .sats))")
        #expect(HumanFormat.watchLine(dollars, unit: .sats) == "2026-11-21T16:00:00.123Z  BTC/USD     874 sats/$  coinbase       fresh")
        #expect(BarFormat.prompt(dollars, unit: .sats) == "₿874 sats/$")
        #expect(try JSONValue(parsing: BarFormat.waybar(dollars, unit: .sats))["text"] == .string("₿ 874 sats/$"))
        #expect(BarFormat.polybar(dollars, unit: .sats) == "%{F#A3BE8C}₿ 874 sats/$%{F-}")
        #expect(BarFormat.i3blocks(dollars, unit: .sats).hasPrefix("₿ 874 sats/$\n₿874 sats/$\n"))
        let cheap = StatusMessage(price: "80000", currency: "EUR", symbol: "BTCEUR", source: "kraken", timestamp: nil,
                                  ageMilliseconds: nil, state: .stale, lastError: nil, version: "0.1.0")
        #expect(BarFormat.prompt(cheap, unit: .sats) == "₿1,250 sats/€?")
        #expect(BarFormat.prompt(cheap, thresholds: PriceThresholds(below: "90000"), unit: .sats) == "₿1,250 sats/€?↓", "thresholds stay prices")
    }

    @Test func unitIsParsedForItsCommandsOnly() throws {
        func action(_ arguments: [String]) throws(CtlUsageError) -> CtlAction { try CtlCommandLine.parse(arguments, socketFromEnvironment: nil).action }
        #expect(try action(["price", "--unit", "sats"]) == .price(format: nil, unit: .sats))
        #expect(try action(["status", "--unit=SATS"]) == .status(json: false, unit: .sats))
        #expect(try action(["waybar", "--watch", "--unit", "sats"]) == .waybar(watch: true, unit: .sats))
        #expect(try action(["prompt", "--unit", "fiat"]) == .prompt(strict: false, format: nil))
        for bad in [["chart", "--unit", "sats"], ["price", "--unit", "msats"], ["status", "--json", "--unit", "sats"],
                    ["price", "--format", "{price}", "--unit", "sats"]] {
            #expect(throws: CtlUsageError.self, "\(bad)") { _ = try action(bad) }
        }
    }

    @Test("convert at 114,459.80 USD", arguments: [
        ("0.05", Conversion.Unit.btc, "0.05000000", "5000000", "5722.99", "0.05000000 BTC = $5,722.99 = 5,000,000 sats"),
        ("21000", .sats, "0.00021000", "21000", "24.04", "21,000 sats = 0.00021000 BTC = $24.04"),
        ("20", .currency("USD"), "0.00017473", "17473", "20.00", "$20.00 = 0.00017473 BTC = 17,473 sats"),
        ("0.000000005", .btc, "0.00000000", "0", "0.00", "0.00000000 BTC = $0.00 = 0 sats"),  // half a sat: to even, 0
        ("0.000000015", .btc, "0.00000002", "2", "0.00", "0.00000002 BTC = $0.00 = 2 sats"),
    ])
    func convert(amount: String, unit: Conversion.Unit, btc: String, sats: String, fiat: String, line: String) throws {
        let conversion = try #require(Conversion(amount: amount, unit: unit, price: "114459.80", currency: "USD"))
        #expect([conversion.btc, conversion.sats, conversion.fiat] == [btc, sats, fiat])
        #expect(conversion.line(given: unit) == line)
    }

    @Test func convertInYenAndOnAStablecoin() throws {
        let yen = try #require(Conversion(amount: "0.05", unit: .btc, price: "17000000.5", currency: "JPY"))
        #expect(yen.fiat == "850000", "0.05 × 17,000,000.5 = 850,000.025: whole yen")
        #expect(yen.line(given: .btc) == "0.05000000 BTC = ¥850,000 = 5,000,000 sats")
        let tether = try #require(Conversion(amount: "20", unit: .currency("USD"), price: "114459.80", currency: "USDT"))
        #expect(tether.line(given: .currency("USD")) == "20.00 USDT = 0.00017473 BTC = 17,473 sats", "USD means the dollar stablecoin the venue quotes")
        #expect(Conversion(amount: "20", unit: .currency("EUR"), price: "114459.80", currency: "USD") == nil)
    }

    @Test func convertArgumentsAreCheckedAndNamed() throws {
        func parse(_ arguments: [String]) throws(CtlUsageError) -> CtlAction { try CtlCommandLine.parse(arguments, socketFromEnvironment: nil).action }
        #expect(try parse(["convert", "0.05"]) == .convert(amount: "0.05", unit: .btc, json: false))
        #expect(try parse(["convert", "20", "EUR", "--json"]) == .convert(amount: "20", unit: .currency("EUR"), json: true))
        #expect(try parse(["convert", "21000", "Sats"]) == .convert(amount: "21000", unit: .sats, json: false))
        let cases: [([String], String)] = [
            (["convert"], "convert needs an amount"),
            (["convert", "1,5"], "\"1,5\" is not an amount"),
            (["convert", "-5"], "\"-5\" is not an amount"),
            (["convert", "1e3"], "\"1e3\" is not an amount"),
            (["convert", "5", "euro"], "\"euro\" is not a currency code"),
            (["convert", "5", "bitcoins!"], "unknown unit \"bitcoins!\""),
            (["convert", "5", "eru"], "did you mean eur?"),
            (["convert", "5", "btc", "now"], "unexpected argument \"now\""),
            (["price", "5"], "unexpected argument \"5\""),
        ]
        for (arguments, message) in cases {
            do {
                _ = try parse(arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(error.message.contains(message), "\(arguments): \(error.message)")
            }
        }
    }
}
