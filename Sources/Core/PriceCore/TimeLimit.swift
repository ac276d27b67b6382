/// Runs one request against a clock's timeout: the first to end wins, the other is cancelled.
enum TimeLimit {
    /// The request's outcome, `failure` when `limit` passed first, nil when cancelled.
    static func run<C: Clock, T: Sendable>(_ limit: Duration, on clock: C, failure: FetchFailure,
                                           _ request: @escaping @Sendable () async throws -> T) async -> Result<T, FetchFailure>?
    where C.Duration == Duration {
        await withTaskGroup(of: Result<T, FetchFailure>?.self) { group in
            group.addTask {
                do {
                    return .success(try await request())
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
                    try await clock.sleep(for: limit)
                    return .failure(failure)
                } catch {
                    return nil
                }
            }
            var outcome: Result<T, FetchFailure>?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            return outcome ?? (Task.isCancelled ? nil : .failure(failure))
        }
    }
}
