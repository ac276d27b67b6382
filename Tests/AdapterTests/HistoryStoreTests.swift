import FileStore
import Foundation
import PriceCore
import Testing

@Suite("History file: round trip, size, corruption and quarantine")
struct HistoryStoreTests {
    /// A week of minutes from 2025-11-21T16:00Z, prices moving every minute.
    func week(minutes: Int = 10_080) -> PriceHistory {
        var history = PriceHistory()
        for minute in 0..<minutes {
            let time = Timestamp(millisecondsSinceEpoch: 1_763_740_800_000 + Int64(minute) * 60_000)
            for step in 0..<3 {
                history.record(try! Price(parsing: "1144\(String(format: "%02d", (minute + step * 7) % 100)).\(step + 1)5").value,
                               at: time.adding(milliseconds: Int64(step) * 10_000))
            }
        }
        return history
    }

    @Test func aWeekRoundTripsExactlyAndStaysUnderTheBound() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        #expect(try store.load() == .none)
        let history = week()
        try store.save(history)
        #expect(try store.load() == .kept(history))
        let size = try FileManager.default.attributesOfItem(atPath: store.path)[.size] as! Int
        #expect(size < 560_000, "a busy week is \(size) bytes")
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.hasPrefix("btcpriced-history 1\n29395680 114400.15 114414.35 114400.15 114414.35\n"))
    }

    @Test func filledMinutesRoundTripWithTheirVenueAfterTheHeader() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        var history = week(minutes: 60)
        let first = try #require(history.bars.first?.minute)
        let candles = (first - 120..<first - 60).map { MinuteBar(minute: $0, open: 2, high: 3, low: 1, close: 2) }
            + (first - 60..<first).map { MinuteBar(minute: $0, open: 5, high: 5, low: 5, close: 5) }
        history.fill(Array(candles[..<60]), within: (first - 120)...(first - 61), from: "kraken")
        history.fill(Array(candles[60...]), within: (first - 60)...(first - 1), from: "binance")
        try store.save(history)
        #expect(try store.load() == .kept(history))
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.hasPrefix("btcpriced-history 1\nfilled \(first - 120) \(first - 61) kraken\nfilled \(first - 60) \(first - 1) binance\n\(first - 120) 2 3 1 2\n"),
                "\(text.prefix(160))")
    }

    @Test func tenYearsOfDaysRoundTripInAFewHundredKilobytes() throws {
        let dir = TemporaryDirectory()
        let store = FileDailyStore(directory: dir.path, currency: "EUR")
        #expect(try store.load() == StoredDaily.none)
        let days = DailyHistory(bars: (0..<3653).map { index in
            DailyBar(day: 16_000 + Int64(index), open: Decimal(100_000 + index), high: Decimal(string: "115200.55")!, low: Decimal(string: "90010.5")!,
                     close: Decimal(string: "114459.8")!)
        })
        try store.save(days)
        #expect(try store.load() == .kept(days))
        let size = try FileManager.default.attributesOfItem(atPath: store.path)[.size] as! Int
        #expect(size < 700_000, "ten years are \(size) bytes")
        #expect(try String(contentsOfFile: store.path, encoding: .utf8).hasPrefix("btcpriced-daily 1 EUR\n2013-10-22 100000 115200.55 90010.5 114459.8\n"))
        #expect(try FileDailyStore(directory: dir.path, currency: "USD").load() == .otherCurrency("EUR", movedTo: store.path + ".EUR"))
    }

    @Test func theFirstDayTheVenuesHadIsKeptSoItIsNotAskedAgain() throws {
        let dir = TemporaryDirectory()
        let store = FileDailyStore(directory: dir.path, currency: "USD")
        let price = { (text: String) in Decimal(string: text)! }
        var days = DailyHistory(bars: [DailyBar(day: 17_395, open: price("4261.48"), high: price("4485.39"), low: price("4200.74"), close: price("4285.08"))])
        #expect(days.markBackfilled() && days.firstAvailableDay == 17_395)
        try store.save(days)
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == "btcpriced-daily 1 USD\nfrom 2017-08-17\n2017-08-17 4261.48 4485.39 4200.74 4285.08\n")
        #expect(try store.load() == .kept(days))
    }

    @Test func aHistoryInAnotherCurrencyIsMovedAsideNotServed() throws {
        let dir = TemporaryDirectory()
        var history = PriceHistory()
        history.record(try Price(parsing: "89712.45").value, at: Timestamp(millisecondsSinceEpoch: 60_000 * 29_395_680))
        try FileHistoryStore(directory: dir.path, currency: "EUR").save(history)
        #expect(try String(contentsOfFile: dir.path + "/history.txt", encoding: .utf8) == "btcpriced-history 1 EUR\n29395680 89712.45\n")
        #expect(try FileHistoryStore(directory: dir.path, currency: "EUR").load() == .kept(history))
        let dollars = FileHistoryStore(directory: dir.path)
        #expect(try dollars.load() == .otherCurrency("EUR", movedTo: dollars.path + ".EUR"))
        #expect(try dollars.load() == .none, "moved aside, not loaded again")
        // A file from before currencies is a dollar history.
        try "btcpriced-history 1\n29395680 114459.8\n".write(toFile: dollars.path, atomically: true, encoding: .utf8)
        #expect(try FileHistoryStore(directory: dir.path, currency: "EUR").load() == .otherCurrency("USD", movedTo: dollars.path + ".USD"))
    }

    @Test func aFlatMinuteIsOnePrice() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        var history = PriceHistory()
        history.record(try Price(parsing: "114459.8").value, at: Timestamp(millisecondsSinceEpoch: 60_000 * 29_395_680))
        try store.save(history)
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == "btcpriced-history 1\n29395680 114459.8\n")
    }

    @Test("a damaged file is moved aside with the reason", arguments: [
        ("", "does not start with"), ("btcpriced-history 2\n", "does not start with"),
        ("btcpriced-history 1", "ends in the middle of its header"),
        ("btcpriced-history 1\n29395680 abc\n", "line 2"), ("btcpriced-history 1\n29395680 1 2\n", "line 2 is not"),
        ("btcpriced-history 1\n29395680 5 4 3 6\n", "do not fit together"),
        ("btcpriced-history 1\n29395681 1\n29395680 1\n", "does not follow"),
        ("btcpriced-history 1\n-5 1\n", "line 2 is not"), ("btcpriced-history 1\n29395680 0\n", "line 2: price 0 is not greater"),
        ("btcpriced-history 1\nfilled 29395680 29395670 binance\n", "line 2 is not \"filled FIRST LAST VENUE\""),
        ("btcpriced-history 1\nfilled 29395680 29395690 Bin\u{1b}nce\n", "line 2 is not \"filled"),
        ("btcpriced-history 1\nfilled 29395680 binance\n", "line 2 is not \"filled"),
        ("btcpriced-daily 1\n", "does not start with"), ("btcpriced-daily 1 USD\n2026-11-28 1 2 1\n", "line 2 is not"),
        ("btcpriced-daily 1 USD\n2026-13-28 1 2 1 2\n", "line 2 is not"), ("btcpriced-daily 1 USD\n2026-11-28 5 4 3 6\n", "do not fit"),
        ("btcpriced-daily 1 USD\n2026-11-28 1 1 1 1\n2026-11-27 1 1 1 1\n", "does not follow"),
        ("btcpriced-daily 1 USD\n2026-11-28 1 1 1 1", "cut short"),
        ("btcpriced-daily 1 USD\nfrom 2017-8-17\n", "line 2 is not \"from YYYY-MM-DD\""),
        ("btcpriced-daily 1 USD\n2026-11-28 1 1 1 1\nfrom 2017-08-17\n", "line 3 is not"),
    ])
    func quarantine(contents: String, reason: String) throws {
        let dir = TemporaryDirectory()
        // daily.txt's cases are told by their header.
        let daily = contents.hasPrefix("btcpriced-daily")
        let store: (path: String, quarantinePath: String) = daily
            ? (FileDailyStore(directory: dir.path).path, FileDailyStore(directory: dir.path).quarantinePath)
            : (FileHistoryStore(directory: dir.path).path, FileHistoryStore(directory: dir.path).quarantinePath)
        try contents.write(toFile: store.path, atomically: false, encoding: .utf8)
        var loaded: (reason: String, movedTo: String)?
        if daily, case .quarantined(let said, let movedTo) = try FileDailyStore(directory: dir.path).load() { loaded = (said, movedTo) }
        if !daily, case .quarantined(let said, let movedTo) = try FileHistoryStore(directory: dir.path).load() { loaded = (said, movedTo) }
        guard let (said, movedTo) = loaded else {
            Issue.record("\(contents.debugDescription) was accepted")
            return
        }
        #expect(said.contains(reason), "\(said)")
        #expect(movedTo == store.quarantinePath && FileManager.default.fileExists(atPath: movedTo))
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func appendedBarsReadBackWithTheRepeatedMinuteTakingItsNewerBar() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        let bar = { (minute: Int64, price: Decimal) in MinuteBar(minute: minute, open: price, high: price, low: price, close: price) }
        #expect(try store.append([bar(29_395_680, 1)][...]) == false, "nothing to append to: the caller writes the file whole")
        try store.save(PriceHistory(bars: [bar(29_395_679, 1), bar(29_395_680, 2)]))
        let inode = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int
        #expect(try store.append([bar(29_395_680, 3), bar(29_395_681, 4)][...]))
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? Int == inode, "appended in place")
        #expect(try store.load() == .kept(PriceHistory(bars: [bar(29_395_679, 1), bar(29_395_680, 3), bar(29_395_681, 4)])))
    }

    @Test func aLastLineCutShortByACrashIsDroppedAndTheRestKept() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        try "btcpriced-history 1\n29395680 114459.8\n29395681 1144".write(toFile: store.path, atomically: false, encoding: .utf8)
        guard case .kept(let history) = try store.load() else {
            Issue.record("a torn append condemned the whole file")
            return
        }
        #expect(history.bars.map(\.minute) == [29_395_680])
    }

    @Test func anOversizedFileIsQuarantinedUnread() throws {
        let dir = TemporaryDirectory()
        let store = FileHistoryStore(directory: dir.path)
        try Data(count: 3 * 1024 * 1024).write(to: URL(fileURLWithPath: store.path))
        guard case .quarantined(let reason, _) = try store.load() else {
            Issue.record("a 3 MiB file was read")
            return
        }
        #expect(reason.contains("larger than 2 MiB"))
    }
}
