import CLinux
import Glibc

/// What the front door's acceptor brings each time it is asked.
public enum Accepted<Connection: Hashable>: Equatable {
    /// A connection, and the user the kernel recorded at connect (nil: it could not say).
    case connection(Connection, peer: UInt32?)
    /// None waits now.
    case drained
    /// The process or the system has no descriptor (or memory) to give one: rest a moment
    /// instead of spinning on a listener that stays readable.
    case outOfResources
}

/// The front door's way in: the loop asks `next` until it says `.drained`. The seam between the
/// listener's system calls and the door's decisions (`PendingRequests.enter`), so each can be
/// tested without the other.
public protocol ConnectionAcceptor: Sendable {
    associatedtype Connection: Hashable
    func next() -> Accepted<Connection>
}

/// Takes connections from a listening Unix socket: `accept4` (non-blocking, close-on-exec) and
/// the peer's UID from `SO_PEERCRED`, which the per-user shares need. The listener must be non-blocking.
public struct SocketAcceptor: ConnectionAcceptor {
    public let listener: CInt

    public init(listener: CInt) {
        self.listener = listener
    }

    public func next() -> Accepted<CInt> {
        while true {
            let client = btcpriced_accept4(listener, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            if client >= 0 {
                let uid = btcpriced_peer_uid(client)
                return .connection(client, peer: uid >= 0 ? UInt32(truncatingIfNeeded: uid) : nil)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfResources
            default: return .drained
            }
        }
    }
}
