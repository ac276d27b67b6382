import FileStore
import Foundation
import PriceCore
import Testing

/// Two instances' views of one shared limits directory keep one pace per venue between them.
@Suite("Host-wide venue pace")
struct HostPaceTests {
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "btcpriced-pace-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func at(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSinceEpoch: 1_763_740_800_000 + milliseconds) }

    @Test func instancesShareOnePacePerVenue() throws {
        let shared = try directory()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let dollars = try FileHostPace(directory: shared), euros = try FileHostPace(directory: shared)
        #expect(dollars.claim("kraken", pace: .seconds(2), at: at(0)))
        #expect(!euros.claim("kraken", pace: .seconds(2), at: at(1999)), "the other instance's call 1.999 s ago counts")
        #expect(euros.claim("binance", pace: .seconds(1), at: at(1999)), "another venue has its own pace")
        #expect(euros.claim("kraken", pace: .seconds(2), at: at(2000)))
        #expect(!dollars.claim("kraken", pace: .seconds(2), at: at(3000)))
        #expect(dollars.claim("kraken", pace: .seconds(2), at: at(1000)), "a clock set back restarts the pace rather than stopping calls")
        #expect(!euros.claim("kraken", pace: .seconds(2), at: at(2999)))
    }

    /// Without a limits directory, the currencies of one daemon keep the same rule in memory.
    @Test func theCurrenciesOfOneProcessShareOnePacePerVenueAndKind() {
        let pace = ProcessHostPace()
        #expect(pace.claim("kraken", pace: .seconds(1), at: at(0)))
        #expect(!pace.claim("kraken", pace: .seconds(1), at: at(999)), "another currency's call 0.999 s ago counts")
        #expect(pace.claim("kraken", kind: .candles, pace: .seconds(1), at: at(999)), "candles keep a pace of their own")
        #expect(pace.claim("coinbase", pace: .seconds(1), at: at(999)), "another venue has its own pace")
        #expect(pace.claim("kraken", pace: .seconds(1), at: at(1000)))
        #expect(pace.claim("kraken", pace: .seconds(1), at: at(500)), "a clock set back restarts the pace rather than stopping calls")
        #expect(!pace.claim("kraken", pace: .seconds(1), at: at(1499)))
    }

    @Test func aDamagedPaceFileIsRewrittenNotObeyed() throws {
        let shared = try directory()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        try "not a time".write(toFile: shared + "/kraken.pace", atomically: true, encoding: .utf8)
        let pace = try FileHostPace(directory: shared)
        #expect(pace.claim("kraken", pace: .seconds(2), at: at(0)))
        #expect(try String(contentsOfFile: shared + "/kraken.pace", encoding: .utf8) == String(at(0).millisecondsSinceEpoch))
    }

    @Test func anUnusableDirectoryIsReportedAtStart() {
        #expect(throws: StoreError.self) { try FileHostPace(directory: "/proc/btcpriced-limits") }
    }
}
