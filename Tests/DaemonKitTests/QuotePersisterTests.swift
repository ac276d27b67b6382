import DaemonKit
import DaemonKitTesting
import Dispatch
import InMemoryLogging
import Logging
import PriceCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing

@Suite("Quote persister: behind the fetch loop, newest wins, one write at a time", .timeLimit(.minutes(1)))
struct QuotePersisterTests {
    func quote(at seconds: Int64) -> Quote {
        Quote(price: try! Price(parsing: "100"), currency: "USDT", symbol: "BTCUSDT", source: .binance,
              timestamp: Timestamp(millisecondsSinceEpoch: seconds * 1000))
    }

    @Test func whileAWriteIsInFlightTheNewestQuoteReplacesOlderOnes() async throws {
        let store = RecordingStore()
        let work = TestWork(gated: true)
        let persister = QuotePersister(store: store, work: work, minimumInterval: .zero, logger: Logger(label: "test"))
        let running = Task { await persister.run() }
        persister.offer(quote(at: 1))
        await work.started(1)
        persister.offer(quote(at: 2))  // returns at once although the disk is stuck
        persister.offer(quote(at: 3))
        work.release()
        work.release()
        persister.finish()
        await running.value
        #expect(store.saved == [1000, 3000])
        #expect(work.counts.value.mostAtOnce == 1)
    }

    @Test func theRateLimitHoldsQuotesBackAndTheLastIsWrittenAtTheEnd() async throws {
        let store = RecordingStore()
        let work = TestWork()
        let persister = QuotePersister(store: store, work: work, minimumInterval: .seconds(60), logger: Logger(label: "test"))
        let running = Task { await persister.run() }
        persister.offer(quote(at: 0))
        await work.finished(1)
        persister.offer(quote(at: 1))
        persister.offer(quote(at: 30))
        persister.offer(quote(at: 61))
        await work.finished(2)
        persister.offer(quote(at: 62))
        persister.finish()
        await running.value
        #expect(store.saved == [0, 61_000, 62_000])
    }

    @Test func gracefulShutdownWritesTheHeldBackQuote() async throws {
        let store = RecordingStore()
        let work = TestWork()
        let persister = QuotePersister(store: store, work: work, minimumInterval: .seconds(3600), logger: Logger(label: "test"))
        try await testGracefulShutdown { trigger in
            let group = ServiceGroup(services: [PersistService(persister: persister, intake: makeIntake(makeBoard().0, persister: persister))],
                                     logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                persister.offer(quote(at: 0))
                await work.finished(1)
                persister.offer(quote(at: 5))
                trigger.triggerGracefulShutdown()
                try await tasks.next()
            }
        }
        #expect(store.saved == [0, 5000])
    }

    @Test func aBrokenDiskIsReportedOnceAndItsRecoveryOnce() async throws {
        let logs = InMemoryLogHandler()
        let store = RecordingStore(failures: 3)
        let work = TestWork()
        let persister = QuotePersister(store: store, work: work, minimumInterval: .zero, logger: Logger(label: "test") { _ in logs })
        let running = Task { await persister.run() }
        for second in 1...5 {
            persister.offer(quote(at: Int64(second)))
            await work.finished(second)
        }
        persister.finish()
        await running.value
        #expect(store.saved == [4000, 5000])
        var reports: [String?] = []
        for await problem in persister.problems { reports.append(problem) }  // ended with the run, every change kept
        #expect(reports == ["No space left on device", nil])
        #expect(logs.entries.map(\.level) == [.error, .info])
        #expect(logs.entries.first?.message.description == "cannot save the quote: No space left on device; still serving it from memory")
    }
}
