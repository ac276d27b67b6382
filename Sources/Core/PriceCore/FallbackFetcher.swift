/// Asks sources in priority order, each under a timeout, until one gives a valid quote.
public struct FallbackFetcher<C: Clock>: Sendable where C.Duration == Duration {
    public let sources: [any PriceSource]
    public let timeout: Duration
    public let clock: C

    public init(sources: [any PriceSource], timeout: Duration, clock: C) {
        self.sources = sources
        self.timeout = timeout
        self.clock = clock
    }

    /// The attempts made, in order; the last one is the success if there was one.
    public func fetch(skipping coolingDown: (SourceName) -> Bool) async -> [SourceAttempt] {
        var attempts: [SourceAttempt] = []
        for source in sources {
            if Task.isCancelled { break }
            if coolingDown(source.name) {
                attempts.append(.coolingDown(source.name))
                continue
            }
            switch await fetchWithTimeout(source) {
            case .success(let quote):
                attempts.append(.succeeded(source.name, quote))
                return attempts
            case .failure(let failure):
                attempts.append(.failed(source.name, failure))
            }
        }
        return attempts
    }

    private func fetchWithTimeout(_ source: any PriceSource) async -> Result<SourceQuote, FetchFailure> {
        let timeout = self.timeout, clock = self.clock
        return await withTaskGroup(of: Result<SourceQuote, FetchFailure>?.self) { group in
            group.addTask {
                do {
                    return .success(try await source.fetchQuote())
                } catch let failure as FetchFailure {
                    return .failure(failure)
                } catch is CancellationError {
                    return nil
                } catch {
                    return .failure(.transport(String(describing: error)))
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                    return .failure(.timeout(after: timeout))
                } catch {
                    return nil
                }
            }
            var outcome: Result<SourceQuote, FetchFailure>?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            return outcome ?? .failure(.timeout(after: timeout))
        }
    }
}
