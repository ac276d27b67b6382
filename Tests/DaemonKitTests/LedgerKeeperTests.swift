import DaemonKit
import DaemonKitTesting
import PriceCore
import Testing
import TestClocks

/// The ledger's keeper, through its door: the chain, the rests and refused streams the previous
/// run saved, and the stream's refusals, each kept in sources.json through the restraint keeper.
@Suite("The ledger's keeper")
struct LedgerKeeperTests {
    let clock = ManualClock()
    let wallClock = ManualWallClock()
    let logs = LogRecorder()

    func door(_ store: any RestraintStore, chain: [SourceName] = [.binance, .coinbase]) -> LedgerKeeper<ManualClock> {
        LedgerKeeper(LedgerDoor(SourceLedger()), chain: chain.map { SourceDescriptor(name: $0, quoteAsset: "USD", limits: SourceLimits(minimumInterval: .seconds(1))) },
                   restraints: RestraintKeeper(store: store, work: TestWork(), logger: logs.logger), clock: clock, wallClock: wallClock, logger: logs.logger)
    }

    @Test func theChainIsKnownAtOnceAndAReloadKeepsWhatIsKnownOfTheVenuesThatStay() {
        let door = door(MemoryRestraintStore())
        #expect(door.ledger.statuses(at: clock.now).map(\.name) == [.binance, .coinbase])
        door.use(chain: [SourceDescriptor(name: .kraken, quoteAsset: "USD", limits: SourceLimits(minimumInterval: .seconds(1))),
                         SourceDescriptor(name: .binance, quoteAsset: "USD", limits: SourceLimits(minimumInterval: .seconds(1)))])
        let names = door.ledger.statuses(at: clock.now).map(\.name)
        #expect(names == [.kraken, .binance], "the reload's order: \(names)")
    }

    @Test func whatThePreviousRunSavedRestsTheVenueAndRefusesItsStreamAgain() async {
        let now = wallClock.now()
        let store = MemoryRestraintStore([.binance: SourceRestraint(restingUntil: now.adding(milliseconds: 120_000)),
                                          .coinbase: SourceRestraint(streamRefusedUntil: now.adding(milliseconds: 1_800_000))])
        let door = door(store)
        await door.restore()
        #expect(door.ledger.nextAllowed(.binance, at: clock.now) == clock.now.advanced(by: .seconds(120)))
        #expect(door.ledger.streamRefusal(.coinbase, at: clock.now) == clock.now.advanced(by: .seconds(1800)))
        let notices = logs.messages(at: .notice)
        #expect(notices.count == 1 && notices.first?.hasPrefix("binance still rests until") == true, "\(notices)")
    }

    @Test func aRefusedStreamIsSavedSoThatTheNextRunRefusesItToo() async {
        let store = MemoryRestraintStore()
        await door(store).handle(.streamRefused(.binance, until: clock.now.advanced(by: .seconds(3600))))
        let saved = try? store.load()
        let until = saved?[.binance]?.streamRefusedUntil
        #expect(until == wallClock.now().adding(milliseconds: 3_600_000), "saved: \(String(describing: saved))")

        let next = door(store)
        await next.restore()
        #expect(next.ledger.streamRefusal(.binance, at: clock.now) == clock.now.advanced(by: .seconds(3600)))
    }

    @Test func aFileThatCannotBeReadIsIgnoredAndSaid() async {
        let door = door(UnreadableRestraintStore())
        await door.restore()
        #expect(door.ledger.streamRefusal(.binance, at: clock.now) == nil)
        let warnings = logs.messages(at: .warning)
        #expect(warnings.contains { $0.contains("it is rewritten at the next change") }, "\(warnings)")
    }
}

private struct UnreadableRestraintStore: RestraintStore {
    struct Garbled: Error {}
    var path: String { "/var/lib/btcpriced/sources.json" }
    func load() throws -> [SourceName: SourceRestraint] { throw Garbled() }
    func save(_ restraints: [SourceName: SourceRestraint]) throws {}
}
