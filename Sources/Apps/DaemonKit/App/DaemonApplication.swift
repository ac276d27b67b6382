import Logging
import PriceCore
import ServiceLifecycle

/// The daemon as one application, in the shape of Hummingbird's `Application`: whatever reads
/// from the daemon (the HTTP listener, the metrics textfile writer), the daemon's own services,
/// then the signal handler, run as one ServiceGroup. A group stops its services in reverse
/// order, so signals stop first and the readers last, after the daemon that feeds them.
public struct DaemonApplication<C: Clock, Plan: ChainPlan>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public let daemon: PriceDaemon<C, Plan>
    /// The daemons of the currencies served beside the primary's (`BTCPRICED_CURRENCIES`):
    /// started before it, so every currency answers once the socket does, and stopped after it.
    public var companions: [PriceDaemon<C, Plan>] = []
    /// Started before the daemon's services, stopped after them.
    public var readers: [any Service] = []
    /// Started last, stopped first: armed before READY=1 is sent, so that a SIGTERM or SIGHUP
    /// from then on is handled, not fatal.
    public var signals: (any Service)?
    /// For ServiceLifecycle's own messages.
    let logger: Logger

    public init(daemon: PriceDaemon<C, Plan>, logger: Logger) {
        self.daemon = daemon
        self.logger = logger
    }

    /// Serves until a graceful shutdown (SIGTERM) has stopped every service. Throws
    /// `DaemonStartError` when the daemon cannot start, and whatever else ended a service.
    public func run() async throws {
        var services = readers
        for companion in companions { services += try await companion.services() }
        services += try await daemon.services() + [signals].compactMap { $0 }
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: logger
        ))
        try await group.run()
    }
}
