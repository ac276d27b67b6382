import Glibc
import NIOCore
import PosixFiles

/// One watcher's state, touched only on its channel's event loop.
final class WatchStream: @unchecked Sendable {
    let channel: any Channel
    /// The currency whose lines it gets.
    let topic: WatchTopic
    /// Bytes written to NIO and not yet to the kernel, as of the last look.
    var queuedBytes = 0
    /// When the stream was first seen with unread bytes, on the hub's clock; nil once it drains.
    var undrainedSince: Duration?
    /// Whether the kernel held bytes the client had not read, at the last sample, and when.
    var kernelUnread = false
    var kernelSampledAt: Duration?

    /// NIO holds a broadcast line only when the writer handed it one (the kernel refused part
    /// of a line): until then NIO's count need not be read, and a watcher that keeps up never
    /// needs it, however many lines a second it gets. A watcher the last sample found behind is
    /// read too, as it is the one a limit may close.
    var mayHoldBytes: Bool {
        kernelUnread || queuedBytes > 0
    }

    var backlog: SlowWatcherPolicy.Backlog {
        SlowWatcherPolicy.Backlog(queuedBytes: queuedBytes, kernelUnread: kernelUnread, undrainedSince: undrainedSince)
    }

    /// Our own descriptor for the socket, dropped when the watcher leaves.
    private var descriptor: DuplicatedDescriptor?

    init(_ channel: any Channel, topic: WatchTopic, descriptor: DuplicatedDescriptor?) {
        self.channel = channel
        self.topic = topic
        self.descriptor = descriptor
    }

    func closeDescriptor() {
        descriptor = nil
    }

    /// Writes to the socket itself, never blocking: returns how many bytes the kernel took (0 if
    /// none), or nil without a descriptor of our own (NIO then writes). A dead peer closes the
    /// channel. Only while NIO holds nothing for it, on the channel's loop.
    func sendDirectly(_ buffer: ByteBuffer) -> Int? {
        guard let descriptor else { return nil }
        let result = buffer.withUnsafeReadableBytes { bytes in
            send(descriptor.value, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if result >= 0 { return result }
        switch errno {
        case EAGAIN, EINTR: return 0
        default:
            channel.close(promise: nil)
            return buffer.readableBytes
        }
    }

    /// Bytes the client has not read yet that sit in the kernel (SO_MEMINFO's write allocation,
    /// in kernel accounting units): zero means the client has read everything we sent. Asked of
    /// our own descriptor, as a plain system call: NIO's option lookup and its future cost more.
    func kernelQueuedBytes() -> Int {
        guard let descriptor else { return 0 }
        var meminfo = KernelMemoryInfo()
        var length = socklen_t(MemoryLayout<KernelMemoryInfo>.size)
        guard getsockopt(descriptor.value, SOL_SOCKET, SO_MEMINFO, &meminfo, &length) == 0 else { return 0 }
        return Int(meminfo.writeAllocation)
    }
}

/// The first fields of Linux's SO_MEMINFO (SK_MEMINFO_RMEM_ALLOC, _RCVBUF, _WMEM_ALLOC); the
/// kernel copies as many as asked for.
private struct KernelMemoryInfo: Sendable {
    var receiveAllocation: UInt32 = 0
    var receiveBuffer: UInt32 = 0
    var writeAllocation: UInt32 = 0
}
