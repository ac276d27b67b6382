#if canImport(Glibc)
import Glibc
#endif

/// A duplicate of a socket's descriptor (NIO's), for the few system calls on the hot path that
/// NIO has no cheap way to make: a stream's paced `recv` ahead of TLS, a watcher's `send` and
/// its SO_MEMINFO. Asking NIO for its descriptor on every call cost more than the call. Being
/// ours, the number cannot be reused for another socket while we hold it, so a late call can
/// never reach a stranger's connection; the socket itself lives until NIO's descriptor and this
/// one are both closed. This one closes when the last reference to it goes, which its one
/// owner (a handler or a watcher, on the channel's event loop) drops when it is done.
public final class DuplicatedDescriptor: Sendable {
    public let value: CInt

    /// Nil when the duplicate cannot be made (out of descriptors): the caller then leaves every
    /// call to NIO.
    public init?(of descriptor: CInt) {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { return nil }
        value = duplicate
    }

    deinit { close(value) }
}
