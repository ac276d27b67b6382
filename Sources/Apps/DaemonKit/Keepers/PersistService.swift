import ServiceLifecycle

/// Writes quotes behind the fetch loop. Listed before FetchService, so it is shut down after
/// it (a ServiceGroup stops services in reverse order, one at a time) and writes the last quote.
/// Only its own shutdown ends it: a service that returns while another is being stopped counts
/// as a failure.
public struct PersistService: Service {
    let persister: QuotePersister

    public init(persister: QuotePersister) { self.persister = persister }

    public func run() async throws {
        let persister = self.persister
        await withGracefulShutdownHandler {
            await persister.run()
        } onGracefulShutdown: {
            persister.finish()
        }
    }
}
