import Dispatch
import PriceCore
import Synchronization

/// A store that records what it is asked to write, can hold a write until released, and can
/// fail on demand: enough to watch the persister's ordering and error reporting.
public final class RecordingStore: QuoteStore {
    public struct Record { public var started = 0; public var inFlight = 0; public var mostInFlight = 0; public var saved: [Quote] = []; public var failuresLeft = 0 }
    public let record = Mutex(Record())
    private let gate = DispatchSemaphore(value: 0)
    private let gated: Bool
    private let stored: StoredQuote
    public let path = "(memory)/quote.json"

    /// `stored` is what `load` finds, as if the previous run had left it.
    public init(gated: Bool = false, failures: Int = 0, stored: StoredQuote = .none) {
        self.gated = gated
        self.stored = stored
        record.withLock { $0.failuresLeft = failures }
    }

    public struct DiskFull: Error, CustomStringConvertible { public var description: String { "No space left on device" } }

    public func load() throws -> StoredQuote { stored }

    public func save(_ quote: Quote) throws {
        let failing = record.withLock { record in
            record.started += 1
            record.inFlight += 1
            record.mostInFlight = max(record.mostInFlight, record.inFlight)
            defer { record.failuresLeft -= 1 }
            return record.failuresLeft > 0
        }
        if gated { gate.wait() }
        try record.withLock { record in
            record.inFlight -= 1
            if failing { throw DiskFull() }
            record.saved.append(quote)
        }
    }

    public func release() { gate.signal() }
    public var saved: [Int64] { record.withLock { $0.saved.map(\.timestamp.millisecondsSinceEpoch) } }
    public var started: Int { record.withLock { $0.started } }
}
