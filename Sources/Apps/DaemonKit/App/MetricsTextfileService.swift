import Logging
import ServiceLifecycle

/// Writes the exposition for node_exporter's textfile collector every `interval`. A directory
/// that is missing or not writable is one error line, and one line when it works again.
public struct MetricsTextfileService<C: Clock>: Service where C.Duration == Duration {
    let path: String
    let interval: Duration
    let exposition: @Sendable () -> String
    /// Replaces the file at `path` with the text, atomically.
    let write: @Sendable (_ path: String, _ text: String) throws -> Void
    let clock: C
    let logger: Logger

    public init(path: String, interval: Duration, exposition: @escaping @Sendable () -> String,
                write: @escaping @Sendable (_ path: String, _ text: String) throws -> Void, clock: C, logger: Logger) {
        self.path = path
        self.interval = interval
        self.exposition = exposition
        self.write = write
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        let path = self.path, interval = self.interval, exposition = self.exposition, write = self.write, clock = self.clock, logger = self.logger
        await cancelWhenGracefulShutdown {
            var outage = OutageLog(logger: logger)
            while true {
                do {
                    try write(path, exposition())
                    outage.succeeded("writing the metrics textfile \(path) works again")
                } catch {
                    outage.failed(error, "cannot write the metrics textfile: \(error); node_exporter will not see btcpriced until this works (is the directory there, and allowed by ReadWritePaths= in a drop-in?)")
                }
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }
}
