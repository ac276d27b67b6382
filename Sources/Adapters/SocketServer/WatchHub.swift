import Glibc
import NIOCore
import Synchronization

/// The set of `watch` connections and the fan-out of new lines to them.
///
/// A client that stops reading costs memory twice: in the kernel (its socket buffer) and here
/// (NIO's queue of unwritten lines). Both are bounded, and such a client is dropped once its
/// stream has not drained for `watchStall`, its own queue passes `watchBacklogLimit`, or all
/// queues together pass `watchQueueLimit` and it holds more than an equal share of that. A
/// watcher within its share is never dropped for the others' backlog, so the total may pass
/// the limit by the line being sent to each such watcher.
final class WatchHub: Sendable {
    private let watchers = Mutex(Watchers())
    private let closed = Mutex(false)
    private let queued = Atomic<Int>(0)
    /// Broadcasts handed to a loop's queue and not yet served there.
    private let inFlight = Atomic<Int>(0)
    private let limits: ServerLimits
    private let metrics: SocketMetrics
    private let now: @Sendable () -> Duration

    init(limits: ServerLimits, metrics: SocketMetrics, now: @escaping @Sendable () -> Duration) {
        self.limits = limits
        self.metrics = metrics
        self.now = now
    }

    /// Registers a watcher and sends it `firstLine`. Returns false once the hub is closed, so
    /// late watchers are not left dangling. Called on the channel's event loop.
    func add(_ channel: any Channel, firstLine: String) -> Bool {
        closed.withLock { isClosed in
            guard !isClosed else { return false }
            if let size = limits.watchSendBuffer {
                try? channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
            }
            // Our own descriptor for the socket, for `sendDirectly` (see there).
            let descriptor = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
                fcntl($0, F_DUPFD_CLOEXEC, 0)
            }
            let stream = WatchStream(channel, descriptor: descriptor.flatMap { $0 >= 0 ? $0 : nil })
            let count = watchers.withLock { watchers in
                watchers.streams[ObjectIdentifier(channel)] = stream
                watchers.byLoop = nil
                return watchers.streams.count
            }
            metrics.subscribers.record(count)
            write(ByteBuffer(string: firstLine), to: stream)
            return true
        }
    }

    /// Called on the channel's event loop when it closes.
    func remove(_ channel: any Channel) {
        let (stream, count) = watchers.withLock { watchers in
            let stream = watchers.streams.removeValue(forKey: ObjectIdentifier(channel))
            if stream != nil { watchers.byLoop = nil }
            return (stream, watchers.streams.count)
        }
        if let stream {
            stream.closeDescriptor()
            queued.subtract(stream.queuedBytes, ordering: .relaxed)
            metrics.subscribers.record(count)
        }
    }

    var count: Int { watchers.withLock { $0.streams.count } }

    /// Bytes waiting in the daemon (not yet handed to the kernel) for all watchers, as of each
    /// watcher's last broadcast.
    var queuedBytes: Int { queued.load(ordering: .relaxed) }

    /// Sends one line to every watcher, from one shared buffer, with one task per event loop.
    /// The future completes once every watcher has been served or dropped.
    @discardableResult
    func broadcast(_ line: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        // Once closed, the loop may be gone too, and a promise made on it would never complete.
        guard !closed.withLock({ $0 }) else { return eventLoop.makeSucceededVoidFuture() }
        let buffer = ByteBuffer(string: line)
        let instant = now()
        let (byLoop, count) = watchers.withLock { ($0.grouped(), $0.streams.count) }
        let share = limits.watchQueueLimit / max(1, count)
        let steps = byLoop.map { group in
            let loop = group[0].channel.eventLoop
            let serve: @Sendable () -> EventLoopFuture<Void> = {
                for stream in group { self.deliver(buffer, to: stream, at: instant, share: share) }
                return loop.makeSucceededVoidFuture()
            }
            // A streamed trade is read on the watchers' loop: serve them now, not a task later,
            // unless an earlier line still waits in the loop's queue and would be overtaken.
            if loop.inEventLoop && inFlight.load(ordering: .acquiring) == 0 { return serve() }
            inFlight.add(1, ordering: .relaxed)
            return loop.flatSubmit {
                self.inFlight.subtract(1, ordering: .releasing)
                return serve()
            }
        }
        return EventLoopFuture.andAllComplete(steps, on: eventLoop)
    }

    /// Runs on the watcher's event loop, so its stream state needs no lock. The kernel's unread
    /// bytes are sampled at most once a second per watcher (a syscall; the stall limit is in
    /// tens of seconds).
    private func deliver(_ buffer: ByteBuffer, to stream: WatchStream, at instant: Duration, share: Int) {
        if stream.kernelSampledAt == nil {
            // Watchers that came together would otherwise all be sampled in the same broadcast,
            // once a second, delaying the last of them by a thousand syscalls: spread them out.
            stream.kernelSampledAt = instant - .milliseconds(Int64(UInt(bitPattern: ObjectIdentifier(stream).hashValue) % 1000))
        }
        if let sampled = stream.kernelSampledAt, instant - sampled >= .seconds(1) {
            stream.kernelSampledAt = instant
            stream.kernelUnread = stream.kernelQueuedBytes() > 0
        }
        decide(buffer, for: stream, at: instant, share: share)
    }

    private func decide(_ buffer: ByteBuffer, for stream: WatchStream, at instant: Duration, share: Int) {
        let channel = stream.channel
        if stream.mayHoldBytes { refreshQueuedBytes(of: stream) }
        if !stream.kernelUnread && stream.queuedBytes == 0 {
            stream.undrainedSince = nil
        } else if stream.undrainedSince == nil {
            stream.undrainedSince = instant
        }
        let stalled = stream.undrainedSince.map { instant - $0 >= limits.watchStall } ?? false
        // Over the total, the watchers holding more than an equal share go; those keeping up stay.
        let overTotal = queuedBytes + buffer.readableBytes > limits.watchQueueLimit && stream.queuedBytes > share
        // NIO's own verdict (isWritable) is the same high-water mark; this one needs no lookup.
        if stalled || overTotal || stream.queuedBytes >= limits.watchBacklogLimit {
            metrics.reject(.slowWatcher)
            channel.close(promise: nil)
            return
        }
        write(buffer, to: stream)
    }

    /// While NIO holds nothing for a watcher, its line goes straight to the socket: NIO's write
    /// path cost more than the system call itself, and with a thousand watchers it was most of
    /// the delay to the last of them. What the kernel does not take, and every line after it
    /// until NIO has drained, goes through NIO, so lines never overtake each other. No promise per
    /// write: what NIO still holds is read back afterwards, though only for a watcher that may be
    /// behind (see `mayHoldBytes`), as reading it is a generic option lookup.
    private func write(_ buffer: ByteBuffer, to stream: WatchStream) {
        if stream.queuedBytes == 0, let sent = stream.sendDirectly(buffer) {
            guard sent < buffer.readableBytes else { return }
            let rest = buffer.getSlice(at: buffer.readerIndex + sent, length: buffer.readableBytes - sent)!
            stream.channel.writeAndFlush(rest, promise: nil)
            setQueuedBytes(of: stream, to: rest.readableBytes)
            refreshQueuedBytes(of: stream)  // NIO may have written some of it already
            return
        }
        stream.channel.writeAndFlush(buffer, promise: nil)
        if stream.mayHoldBytes { refreshQueuedBytes(of: stream) }
    }

    /// Brings the stream's share of the total up to date with NIO's own count.
    private func refreshQueuedBytes(of stream: WatchStream) {
        guard let buffered = try? stream.channel.syncOptions?.getOption(.bufferedWritableBytes) else { return }
        setQueuedBytes(of: stream, to: buffered)
    }

    private func setQueuedBytes(of stream: WatchStream, to bytes: Int) {
        queued.add(bytes - stream.queuedBytes, ordering: .relaxed)
        stream.queuedBytes = bytes
    }

    /// Ends every stream; used at shutdown.
    func closeAll() async {
        closed.withLock { $0 = true }
        let streams = watchers.withLock { watchers in
            defer { watchers = Watchers() }
            return Array(watchers.streams.values)
        }
        for stream in streams {
            try? await stream.channel.close()
            // On the loop, where a broadcast already under way may still write to it.
            try? await stream.channel.eventLoop.submit { stream.closeDescriptor() }.get()
        }
    }
}

/// The watchers, and the same grouped by event loop for the broadcast, kept until one comes or goes.
private struct Watchers {
    var streams: [ObjectIdentifier: WatchStream] = [:]
    var byLoop: [[WatchStream]]?

    mutating func grouped() -> [[WatchStream]] {
        if let byLoop { return byLoop }
        let grouped = Array(Dictionary(grouping: streams.values) { ObjectIdentifier($0.channel.eventLoop) }.values)
        byLoop = grouped
        return grouped
    }
}

/// One watcher's state, touched only on its channel's event loop.
private final class WatchStream: @unchecked Sendable {
    let channel: any Channel
    /// Bytes written to NIO and not yet to the kernel, as of the last look.
    var queuedBytes = 0
    /// When the stream was first seen with unread bytes, on the hub's clock; nil once it drains.
    var undrainedSince: Duration?
    /// Whether the kernel held bytes the client had not read, at the last sample, and when.
    var kernelUnread = false
    var kernelSampledAt: Duration?

    /// NIO holds a broadcast line only when `write` handed it one (the kernel refused part of
    /// a line): until then NIO's count need not be read, and a watcher that keeps up never
    /// needs it, however many lines a second it gets. A watcher the last sample found behind is
    /// read too, as it is the one a limit may close.
    var mayHoldBytes: Bool {
        kernelUnread || queuedBytes > 0
    }

    /// A duplicate of the channel's descriptor, ours to close when the watcher leaves: asking NIO
    /// for its own on every write cost more than the write. Being ours, its number cannot be
    /// reused for another client while we hold it; the socket itself lives until both are closed.
    private var descriptor: CInt?

    init(_ channel: any Channel, descriptor: CInt?) {
        self.channel = channel
        self.descriptor = descriptor
    }

    func closeDescriptor() {
        if let descriptor { close(descriptor) }
        descriptor = nil
    }

    /// Writes to the socket itself, never blocking: returns how many bytes the kernel took (0 if
    /// none), or nil without a descriptor of our own (NIO then writes). A dead peer closes the
    /// channel. Only while NIO holds nothing for it, on the channel's loop.
    func sendDirectly(_ buffer: ByteBuffer) -> Int? {
        guard let descriptor else { return nil }
        let result = buffer.withUnsafeReadableBytes { bytes in
            send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
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
        guard getsockopt(descriptor, SOL_SOCKET, SO_MEMINFO, &meminfo, &length) == 0 else { return 0 }
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
