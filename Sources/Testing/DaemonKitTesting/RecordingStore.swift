import PriceCore
import Synchronization

/// A store that records what it is asked to write and can fail on demand: enough to watch the
/// persister's ordering and error reporting. A stuck disk is `TestWork(gated: true)`.
public final class RecordingStore: QuoteStore {
    public struct Record { public var started = 0; public var saved: [Quote] = []; public var failuresLeft = 0 }
    public let record = Mutex(Record())
    private let stored: StoredQuote
    public let path = "(memory)/quote.json"

    /// `stored` is what `load` finds, as if the previous run had left it.
    public init(failures: Int = 0, stored: StoredQuote = .none) {
        self.stored = stored
        record.withLock { $0.failuresLeft = failures }
    }

    public struct DiskFull: Error, CustomStringConvertible { public var description: String { "No space left on device" } }

    public func load() throws -> StoredQuote { stored }

    public func save(_ quote: Quote) throws {
        try record.withLock { record in
            record.started += 1
            defer { record.failuresLeft -= 1 }
            if record.failuresLeft > 0 { throw DiskFull() }
            record.saved.append(quote)
        }
    }

    public var saved: [Int64] { record.withLock { $0.saved.map(\.timestamp.millisecondsSinceEpoch) } }
    public var started: Int { record.withLock { $0.started } }
}
