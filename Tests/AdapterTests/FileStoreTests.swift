import FileStore
import Foundation
import PriceCore
import Testing

/// A fresh directory per test, removed afterwards.
struct TemporaryDirectory: ~Copyable {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("btcpriced-test-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The quote every store test saves and expects back.
let sampleQuote = Quote(price: try! Price(parsing: "68901.23"), currency: "USDT", symbol: "BTCUSDT", source: .binance,
                        timestamp: Timestamp(millisecondsSinceEpoch: 1_795_276_800_123))

@Suite("File store: durable writes, restore, quarantine")
struct FileStoreTests {
    let quote = sampleQuote

    @Test func roundTripKeepsEveryFieldExactly() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        try store.save(quote)
        #expect(try store.load() == .quote(quote))
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text == #"{"version":1,"price":"68901.23","currency":"USDT","symbol":"BTCUSDT","source":"binance","timestamp":"2026-11-21T16:00:00.123Z","origins":{}}"# + "\n")
    }

    @Test func fileModeIs0644EvenUnderATightUmask() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        let old = umask(0o077)
        defer { umask(old) }
        try store.save(quote)
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    @Test func missingFileMeansNoData() throws {
        let dir = TemporaryDirectory()
        #expect(try FileQuoteStore(directory: dir.path).load() == StoredQuote.none)
    }

    @Test("corrupt files are moved aside", arguments: ["", "{\"price\":\"6890", "<html>", "{\"version\":2,\"price\":\"1\"}",
                                                        "[1,2]", "{\"price\":\"-1\",\"currency\":\"USD\",\"symbol\":\"X\",\"source\":\"y\",\"timestamp\":\"2026-11-21T16:00:00.000Z\"}",
                                                        "{\"price\":\"1\",\"currency\":\"USD\",\"symbol\":\"X\",\"source\":\"y\",\"timestamp\":\"yesterday\"}"])
    func quarantinesCorruptFiles(contents: String) throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        try contents.write(toFile: store.path, atomically: false, encoding: .utf8)
        guard case .quarantined(let reason, let movedTo) = try store.load() else {
            Issue.record("\(contents.debugDescription) was not quarantined")
            return
        }
        #expect(!reason.isEmpty)
        #expect(movedTo == store.path + ".corrupt")
        #expect(!FileManager.default.fileExists(atPath: store.path))
        #expect(try String(contentsOfFile: movedTo, encoding: .utf8) == contents)
        #expect(try store.load() == StoredQuote.none)
    }

    @Test func oversizedFileIsQuarantined() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        try Data(repeating: 0x20, count: 200_000).write(to: URL(fileURLWithPath: store.path))
        guard case .quarantined = try store.load() else {
            Issue.record("oversized file was not quarantined")
            return
        }
    }

    @Test func prepareRemovesLeftoverTempFilesOnly() throws {
        let dir = TemporaryDirectory()
        let files = StateFiles(directory: dir.path + "/nested/state", currency: "USD")
        try files.prepare()
        try files.quote.save(quote)
        let leftovers = [".history.txt.tmp.7", ".quote.json.tmp.123", ".quote.json.tmp.99999"]
        for name in leftovers + ["unrelated.txt"] {
            _ = FileManager.default.createFile(atPath: files.directory + "/" + name, contents: Data("x".utf8))
        }
        #expect(try files.prepare().sorted() == leftovers)
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory).sorted() == ["quote.json", "unrelated.txt"])
        #expect(try files.quote.load() == .quote(quote))
    }

    @Test(.enabled(if: getuid() != 0, "skipped as root: root ignores directory permissions; run swift test as a normal user to cover it"))
    func unwritableDirectoryGivesAnActionableError() throws {
        let dir = TemporaryDirectory()
        chmod(dir.path, 0o500)
        defer { chmod(dir.path, 0o755) }
        #expect { try FileQuoteStore(directory: dir.path).save(quote) } throws: { error in
            "\(error)".contains("BTCPRICED_STATE_DIR")
        }
    }

    @Test func unusableDirectoryPathIsAnError() throws {
        let dir = TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: dir.path + "/file", contents: nil)
        #expect(throws: StoreError.self) { try StateFiles(directory: dir.path + "/file/state", currency: "USD").prepare() }
    }
}

@Suite("sources.json: restraints on disk")
struct RestraintStoreTests {
    @Test func roundTripAndBadFiles() throws {
        let directory = TemporaryDirectory()
        let store = FileRestraintStore(directory: directory.path)
        #expect(try store.load().isEmpty)
        let restraints: [SourceName: SourceRestraint] = [
            .binance: SourceRestraint(restingUntil: Timestamp(millisecondsSinceEpoch: 1_795_300_120_000),
                                      streamRefusedUntil: Timestamp(millisecondsSinceEpoch: 1_795_303_600_000)),
            .cryptoCompare: SourceRestraint(lastCall: Timestamp(millisecondsSinceEpoch: 1_795_300_000_000),
                                            callsByHourEnd: [1_795_302_000_000: 312, 1_795_298_400_000: 7]),
        ]
        try store.save(restraints)
        #expect(try store.load() == restraints)
        // Written before streams were refused on disk: still read.
        try #"{"version":1,"sources":{"kraken":{"resting_until":"2026-11-22T10:00:00Z"}}}"#.write(toFile: store.path, atomically: true, encoding: .utf8)
        #expect(try store.load() == [.kraken: SourceRestraint(restingUntil: Timestamp(rfc3339: "2026-11-22T10:00:00Z"))])
        for junk in ["", "{", #"{"version":2,"sources":{}}"#, #"{"version":1,"sources":{"binance":{"resting_until":"soon"}}}"#] {
            try junk.write(toFile: store.path, atomically: true, encoding: .utf8)
            #expect(throws: (any Error).self) { try store.load() }
        }
    }
}

@Suite("Hostile or odd state files")
struct HostileStateFileTests {
    let quote = sampleQuote

    func expectQuarantined(_ store: FileQuoteStore, reasonContains text: String) throws {
        guard case .quarantined(let reason, let movedTo) = try store.load() else {
            Issue.record("\(text): not quarantined")
            return
        }
        #expect(reason.contains(text))
        #expect(FileManager.default.fileExists(atPath: movedTo))
        #expect(try store.load() == StoredQuote.none)
        try store.save(quote)
        #expect(try store.load() == .quote(quote), "the next save works again")
    }

    @Test func aDirectoryIsMovedAsideNotFatal() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: false)
        try expectQuarantined(store, reasonContains: "a directory")
    }

    @Test func aFIFODoesNotHangTheRead() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        #expect(mkfifo(store.path, 0o644) == 0)
        try expectQuarantined(store, reasonContains: "a FIFO")
    }

    @Test func aSymlinkIsNotFollowed() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        try "secret".write(toFile: dir.path + "/elsewhere", atomically: true, encoding: .utf8)
        #expect(symlink(dir.path + "/elsewhere", store.path) == 0)
        try expectQuarantined(store, reasonContains: "symbolic link")
        #expect(try String(contentsOfFile: dir.path + "/elsewhere", encoding: .utf8) == "secret")
    }

    @Test func aSymlinkPlantedAtTheTempNameIsNeverWrittenThrough() throws {
        let dir = TemporaryDirectory()
        let store = FileQuoteStore(directory: dir.path)
        let victim = dir.path + "/victim"
        try "precious".write(toFile: victim, atomically: true, encoding: .utf8)
        #expect(symlink(victim, dir.path + "/.quote.json.tmp.\(getpid())") == 0)
        try store.save(quote)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try store.load() == .quote(quote))
    }

    @Test func aSecondLockOnTheSameDirectoryIsRefusedAtOnce() throws {
        let dir = TemporaryDirectory()
        let first = try StateDirectoryLock(directory: dir.path + "/state")
        #expect { try StateDirectoryLock(directory: dir.path + "/state") } throws: { error in
            "\(error)".contains("another btcpriced is already using")
        }
        withExtendedLifetime(first) {}
        _ = try StateDirectoryLock(directory: dir.path + "/other")
    }
}

@Suite("Saved quotes remember where they came from")
struct QuoteOriginTests {
    let quote = sampleQuote

    @Test func aQuoteFromAFakeExchangeIsNotRestoredByARealRun() throws {
        let dir = TemporaryDirectory()
        try FileQuoteStore(directory: dir.path) { [.binance: "http://127.0.0.1:40123"] }.save(quote)
        let real = FileQuoteStore(directory: dir.path) { [.binance: "https://api.binance.com"] }
        guard case .foreign(let found, let reason) = try real.load() else {
            Issue.record("the fake quote was restored")
            return
        }
        #expect(found == quote)
        #expect(reason == "its binance price came from http://127.0.0.1:40123, not the configured https://api.binance.com")
        // Same origin, or a file from before origins were recorded: restored as usual.
        #expect(try FileQuoteStore(directory: dir.path) { [.binance: "http://127.0.0.1:40123"] }.load() == .quote(quote))
        try #"{"version":1,"price":"1","currency":"USD","symbol":"x","source":"binance","timestamp":"2026-11-21T16:00:00.000Z"}"#
            .write(toFile: real.path, atomically: true, encoding: .utf8)
        guard case .quote = try real.load() else {
            Issue.record("a file without origins was not restored")
            return
        }
    }
}
