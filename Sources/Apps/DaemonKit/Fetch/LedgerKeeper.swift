import Logging
import PriceCore

/// What the rest of the daemon tells the venues' ledger; the fetch loop records its own requests.
public enum LedgerEvent<Instant: Sendable>: Sendable {
    /// A venue refused its stream (a declined upgrade, as from a restricted location): it is
    /// not asked for it again until `until`, across restarts.
    case streamRefused(SourceName, until: Instant)
}

/// The daemon's side of the ledger's one door (`LedgerDoor`, which the fetch loop and the
/// backfill also hold for their requests): the chain a plan brings, the rests and budgets the
/// previous run saved, and the events the stream sends. A change that must outlive a restart
/// is offered to sources.json (`RestraintKeeper`), which the fetch service and the backfill
/// also ask after their requests.
public final class LedgerKeeper<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public let door: LedgerDoor<C.Instant>
    public var ledger: SourceLedger<C.Instant> { door.ledger }
    private let restraints: RestraintKeeper
    private let clock: C
    private let wallClock: any WallClock
    private let logger: Logger

    /// `ledger` learns `chain` at once, so `sources` lists it before the first cycle.
    public init(_ door: LedgerDoor<C.Instant>, chain: [SourceDescriptor], restraints: RestraintKeeper, clock: C, wallClock: any WallClock,
                logger: Logger) {
        self.door = door
        self.restraints = restraints
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        door.configure(chain)
    }

    /// What the previous run saved (rests, budgets, refused streams), before anything asks a venue.
    public func restore() async {
        let saved = await restraints.load()
        for source in door.restore(saved, at: clock.now, wallTime: wallClock.now()) {
            if let until = saved[source]?.restingUntil {
                logger.notice("\(source) still rests until \(until.rfc3339), as it asked before the restart", metadata: ["source": "\(source)"])
            }
        }
    }

    /// A reload's chain, for the next cycles; what is known of the venues that stay is kept.
    public func use(chain: [SourceDescriptor]) {
        door.configure(chain)
    }

    public func handle(_ event: LedgerEvent<C.Instant>) async {
        switch event {
        case .streamRefused(let venue, let until):
            door.refuseStream(venue, until: until)
        }
        await saveChanges()
    }

    /// Offers the ledger's restraints to sources.json; nothing is written unless they changed.
    public func saveChanges() async {
        await restraints.offer(from: ledger, now: clock.now, wallTime: wallClock.now())
    }
}
