import ListenerKit
import WireProtocol

/// The front door's bookkeeping, apart from its system calls: the connections still sending
/// their request line, each with its deadline and the place it holds (`Occupant`), and the ones
/// turned away, which hold none and drain briefly before they close. A request line ends at its
/// first newline, at `maximumRequestLength` bytes (the rest is never read), or at the end of
/// input when anything came. Tests drive it with bytes and instants: no socket, no clock.
public struct PendingRequests<Connection: Hashable, Occupant> {
    /// What the front door does next with a connection.
    public enum Next {
        /// Nothing yet: the line is not complete.
        case wait
        /// Its request line is complete (the connection is no longer pending).
        case answer([UInt8], Occupant)
        /// It hung up, or it was turned away and is done: close it, and free its place if any.
        case drop(Occupant?)
    }

    private struct Entry {
        var line: [UInt8] = []
        var deadline: Duration
        /// Nil for a connection turned away, which holds no place.
        var occupant: Occupant?
    }

    private var entries: [Connection: Entry] = [:]

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var connections: [Connection] { Array(entries.keys) }
    public func contains(_ connection: Connection) -> Bool { entries[connection] != nil }

    /// An admitted connection has until `deadline` to send its line.
    public mutating func admit(_ connection: Connection, holding occupant: Occupant, until deadline: Duration) {
        entries[connection] = Entry(deadline: deadline, occupant: occupant)
    }

    /// A connection told it is over a limit: what it still sends is read and dropped until
    /// `deadline`, so that closing does not reset it before it read the explanation.
    public mutating func turnAway(_ connection: Connection, until deadline: Duration) {
        entries[connection] = Entry(deadline: deadline, occupant: nil)
    }

    /// `bytes` arrived; an empty read is the end of input.
    public mutating func received(_ bytes: some Collection<UInt8>, from connection: Connection) -> Next {
        guard var entry = entries[connection] else { return .wait }
        guard let occupant = entry.occupant else { return bytes.isEmpty ? .drop(remove(connection)) : .wait }
        if bytes.isEmpty {
            // End of input: a request without a newline is still a request; nothing is a hang-up.
            entries[connection] = nil
            return entry.line.isEmpty ? .drop(occupant) : .answer(entry.line, occupant)
        }
        entry.line += bytes
        let limit = WireProtocol.maximumRequestLength
        if let newline = entry.line.prefix(limit).firstIndex(of: UInt8(ascii: "\n")) {
            entries[connection] = nil
            return .answer(Array(entry.line[..<newline]), occupant)
        }
        if entry.line.count >= limit {
            entries[connection] = nil
            return .answer(Array(entry.line.prefix(limit)), occupant)
        }
        entries[connection] = entry
        return .wait
    }

    /// Forgets `connection` (it failed, or the server stops); returns the place it held.
    @discardableResult
    public mutating func remove(_ connection: Connection) -> Occupant? {
        entries.removeValue(forKey: connection)?.occupant
    }

    /// The connections whose deadline `now` reached, no longer pending: with their place, the
    /// ones that sent no complete line in time; without, the turned-away ones done draining.
    public mutating func expire(at now: Duration) -> [(connection: Connection, occupant: Occupant?)] {
        // Asked after every wakeup: nothing is allocated unless something expired.
        var expired: [(connection: Connection, occupant: Occupant?)] = []
        for (connection, entry) in entries where entry.deadline <= now { expired.append((connection, entry.occupant)) }
        for (connection, _) in expired { entries[connection] = nil }
        return expired
    }

    /// How long epoll may wait: until the next deadline, or `alsoUntil`, rounded up to a whole
    /// millisecond; -1 (forever) when nothing waits, so an idle daemon is never woken.
    public func waitMilliseconds(at now: Duration, alsoUntil other: Duration? = nil) -> Int32 {
        let next = entries.values.lazy.map(\.deadline).min().map { deadline in other.map { min($0, deadline) } ?? deadline } ?? other
        guard let next else { return -1 }
        return next <= now ? 0 : Int32(clamping: (next - now).wholeMilliseconds + 1)
    }
}

extension PendingRequests where Occupant == UserOccupant {
    /// What `enter` did with a connection.
    public enum Admission: Equatable {
        case admitted
        /// Send `line`, half-close, and keep reading until the drain's deadline.
        case turnedAway(line: String, refusal: UserBudget.Refusal)
    }

    /// How long a turned-away connection is drained after its explanation.
    public static var drainTime: Duration { .milliseconds(250) }

    /// The door's decision for an accepted connection from `peer`: a place in the peer's share
    /// and until `now + requestTimeout` to send its line, or turned away with the reason (the
    /// user's share or the socket is full, or the kernel could not say who connected).
    public mutating func enter(_ connection: Connection, peer: UInt32?, budget: UserBudget, at now: Duration,
                               requestTimeout: Duration) -> Admission {
        do throws(UserBudget.Refusal) {
            guard let peer else { throw .unknownPeer }
            admit(connection, holding: UserOccupant(try budget.admit(peer)), until: now + requestTimeout)
            return .admitted
        } catch {
            turnAway(connection, until: now + Self.drainTime)
            return .turnedAway(line: ErrorReply.busy(budget.message(for: error)).line, refusal: error)
        }
    }
}
