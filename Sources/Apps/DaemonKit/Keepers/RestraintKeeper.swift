import Logging
import PriceCore
import Synchronization

/// Writes `sources.json` whenever a venue's cool-down or a budgeted call changes it, so a
/// restart (or a restart loop) resumes every rest and budget instead of asking at once.
public actor RestraintKeeper {
    private let store: any RestraintStore
    private let work: any BlockingWork
    private let logger: Logger
    private var written: [SourceName: SourceRestraint]?
    /// The ledger's restraint version last looked at; -1 forces a look. Read outside the actor,
    /// so the cycles where nothing changed (nearly all) cost no hop to it.
    private nonisolated let seenVersion = Atomic<Int>(-1)
    private var outage: OutageLog

    public init(store: any RestraintStore, work: any BlockingWork, logger: Logger) {
        self.store = store
        self.work = work
        self.logger = logger
        outage = OutageLog(logger: logger)
    }

    /// What the previous run left (`LedgerDoor` restores it into the ledger); a bad file is
    /// ignored, as if empty, and rewritten at the next change.
    public func load() -> [SourceName: SourceRestraint] {
        do {
            let restraints = try store.load()
            written = restraints
            return restraints
        } catch {
            RestoreReport(logger: logger, path: store.path).ignoring("\(error)", then: "it is rewritten at the next change")
            return [:]
        }
    }

    public nonisolated func offer<Instant>(from ledger: SourceLedger<Instant>, now: Instant, wallTime: Timestamp) async {
        guard ledger.restraintVersion != seenVersion.load(ordering: .relaxed) else { return }
        await save(from: ledger, now: now, wallTime: wallTime)
    }

    private func save<Instant>(from ledger: SourceLedger<Instant>, now: Instant, wallTime: Timestamp) async {
        let version = ledger.restraintVersion
        guard version != seenVersion.load(ordering: .relaxed) else { return }
        seenVersion.store(version, ordering: .relaxed)
        let restraints = ledger.restraints(at: now, wallTime: wallTime)
        guard restraints != written else { return }
        let store = self.store
        do {
            try await work.run { try store.save(restraints) }
            written = restraints
            outage.succeeded("saving \(store.path) works again")
        } catch {
            seenVersion.store(-1, ordering: .relaxed)  // try again next cycle
            outage.failed(error, "cannot save \(store.path): \(error); cool-downs and budgets will not survive a restart")
        }
    }
}
