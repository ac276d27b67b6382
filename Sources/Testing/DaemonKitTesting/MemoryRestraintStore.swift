import PriceCore
import Synchronization

/// Rests and budgets kept in memory, as sources.json keeps them on disk.
public final class MemoryRestraintStore: RestraintStore {
    private let kept: Mutex<[SourceName: SourceRestraint]>

    public init(_ restraints: [SourceName: SourceRestraint] = [:]) { kept = Mutex(restraints) }

    public var path: String { "memory" }
    public func load() throws -> [SourceName: SourceRestraint] { kept.withLock { $0 } }
    public func save(_ restraints: [SourceName: SourceRestraint]) throws { kept.withLock { $0 = restraints } }
}
