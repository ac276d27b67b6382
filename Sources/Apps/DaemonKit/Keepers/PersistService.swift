import ServiceLifecycle

/// Writes quotes behind the fetch loop, and tells the door when saving starts or stops
/// failing. Listed before FetchService, so it is shut down after it (a ServiceGroup stops
/// services in reverse order, one at a time) and writes the last quote. Only its own shutdown
/// ends it: a service that returns while another is being stopped counts as a failure.
public struct PersistService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let persister: QuotePersister
    let intake: PriceIntake<C>

    public init(persister: QuotePersister, intake: PriceIntake<C>) {
        self.persister = persister
        self.intake = intake
    }

    public func run() async throws {
        let persister = self.persister, intake = self.intake
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                // Ends when the persister's run does.
                group.addTask { await intake.followSaving(persister.problems) }
                await persister.run()
            }
        } onGracefulShutdown: {
            persister.finish()
        }
    }
}
