import DaemonKit
import FileStore
import Logging
import MetricsExport
import ServiceLifecycle

/// Writes the exposition for node_exporter's textfile collector every `interval`. A directory
/// that is missing or not writable is one error line, and one line when it works again.
struct MetricsTextfileService<C: Clock>: Service where C.Duration == Duration {
    let path: String
    let interval: Duration
    let replies: SocketReplies<C>
    let clock: C
    let logger: Logger

    func run() async throws {
        let path = self.path, interval = self.interval, replies = self.replies, clock = self.clock, logger = self.logger
        await cancelWhenGracefulShutdown {
            var outage = OutageLog(logger: logger)
            while true {
                do {
                    try AtomicTextFile.replace(path, with: replies.metricsReply())
                    outage.succeeded("writing the metrics textfile \(path) works again")
                } catch {
                    outage.failed(error, "cannot write the metrics textfile: \(error); node_exporter will not see btcpriced until this works (is the directory there, and allowed by ReadWritePaths= in a drop-in?)")
                }
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }
}

/// Closes the metrics listener at shutdown.
struct MetricsHTTPService: Service {
    let server: MetricsHTTPServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}
