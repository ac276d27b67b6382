import PriceCore
import Synchronization

/// A scripted source for core tests: the core is pure, so its ports are all it talks to.
public final class StubSource: PriceSource, Sendable {
    public enum Step: Sendable {
        case quote(String)
        /// A quote the venue or a cache dated: made at `origin`, held `cacheAge` by a cache.
        case dated(String, origin: Timestamp?, cacheAge: Duration)
        case fail(FetchFailure)
        /// Never answers until cancelled.
        case hang
    }

    public let name: SourceName
    public let quoteAsset: String
    public let limits: SourceLimits
    private let steps: Mutex<[Step]>
    private let calls = Mutex(0)

    public init(_ name: SourceName, _ steps: [Step], limits: SourceLimits = SourceLimits(minimumInterval: .zero)) {
        self.name = name
        self.quoteAsset = name == .binance ? "USDT" : "USD"
        self.limits = limits
        self.steps = Mutex(steps)
    }

    /// Replaces what the source answers from its next call on.
    public func answer(_ steps: [Step]) {
        self.steps.withLock { $0 = steps }
    }

    public var callCount: Int { calls.withLock { $0 } }

    public func fetchQuote() async throws -> SourceQuote {
        calls.withLock { $0 += 1 }
        // The last step repeats forever.
        let step = steps.withLock { steps in steps.count > 1 ? steps.removeFirst() : steps[0] }
        switch step {
        case .quote(let text):
            return SourceQuote(price: try Price(parsing: text), symbol: name == .binance ? "BTCUSDT" : "BTCUSD", quoteAsset: quoteAsset)
        case .dated(let text, let origin, let cacheAge):
            return SourceQuote(price: try Price(parsing: text), symbol: name == .binance ? "BTCUSDT" : "BTCUSD", quoteAsset: quoteAsset,
                               originTime: origin, cacheAge: cacheAge)
        case .fail(let failure):
            throw failure
        case .hang:
            try await Task.sleep(for: .seconds(86_400))
            throw CancellationError()
        }
    }
}
