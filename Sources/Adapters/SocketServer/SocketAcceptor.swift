import CLinux
import Glibc

/// The front door's way in, and the seam between the listener's system calls and the door's
/// decisions (`PendingRequests.enter`), so each is tested without the other: takes connections
/// from a listening Unix socket with `accept4` (non-blocking, close-on-exec), and the peer's UID
/// from `SO_PEERCRED`, which the per-user shares need. The listener must be non-blocking.
public struct SocketAcceptor: Sendable {
    /// What each `next` brings.
    public enum Accepted: Equatable {
        /// A connection, and the user the kernel recorded at connect (nil: it could not say).
        case connection(CInt, peer: UInt32?)
        /// None waits now.
        case drained
        /// The process or the system has no descriptor (or memory) to give one: rest a moment
        /// instead of spinning on a listener that stays readable.
        case outOfResources
    }

    public let listener: CInt

    public init(listener: CInt) {
        self.listener = listener
    }

    /// The next waiting connection; the loop asks until `.drained`.
    public func next() -> Accepted {
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
