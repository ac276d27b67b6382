import Synchronization

/// The one object that holds a connection's seat from accept to close, wherever the connection
/// is served (the front door's loop, then NIO): the seat cannot be copied, so whoever has the
/// occupant has the seat. Leaving gives the seat back, once; an occupant dropped without
/// leaving (a hand-off that failed) gives it back as it goes.
public final class Occupant<Party: Hashable & Sendable & CustomStringConvertible>: Sendable {
    private let seat: Mutex<ConnectionBudget<Party>.Seat?>

    @_specialize(exported: true, where Party == UInt32)
    @_specialize(exported: true, where Party == String)
    public init(_ seat: consuming ConnectionBudget<Party>.Seat) {
        self.seat = Mutex(.some(seat))
    }

    /// The seat's party, while it is held.
    public var party: Party? { seat.withLock { $0?.party } }
    public var isWatching: Bool { seat.withLock { $0?.watching ?? false } }

    /// Counts the connection as a stream; on refusal the seat is unchanged and still held.
    @_specialize(exported: true, where Party == UInt32)
    @_specialize(exported: true, where Party == String)
    public func startWatching() -> ConnectionBudget<Party>.Refusal? {
        seat.withLock { seat -> ConnectionBudget<Party>.Refusal? in
            guard var held = seat.take() else { return nil }
            let refusal = held.budget.startWatching(&held)
            seat = consume held
            return refusal
        }
    }

    /// Gives the seat back; later calls find nothing to give. Specialised for both listeners'
    /// parties, as `ConnectionBudget.admit` is: this runs at every close.
    @_specialize(exported: true, where Party == UInt32)
    @_specialize(exported: true, where Party == String)
    public func leave() {
        let taken = seat.withLock { $0.take() }
        taken?.release()
    }
}

/// A Unix socket connection's occupant: its party is a local user.
public typealias UserOccupant = Occupant<UInt32>
