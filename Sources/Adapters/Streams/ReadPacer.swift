#if canImport(Glibc)
import Glibc
#endif
import EventLoopScheduling
import NIOCore
import PosixFiles

/// Reads a stream at most once per `interval` while messages keep coming, so a busy market
/// wakes the daemon once per publish, not once per trade. Placed first in the pipeline with
/// `autoRead` off: after a read it asks for the next one at most `interval` later, and whatever the
/// kernel gathered meanwhile is read in that one wakeup. When the market is quiet the read
/// stays asked for, so the first message after a lull is read the moment it arrives. A message
/// therefore waits at most one interval in the kernel. Reads fall on the process's wakeup grid of
/// the same interval, where the daemon's other timers that may wait end too. A paced read takes
/// what the kernel holds from the socket itself, as `WatchStream` writes: NIO's round for it
/// (arm the socket in epoll, a second pass of the loop, disarm it) cost more than the read. Only
/// an empty socket, its end or an error goes back to NIO's read, which waits or reports it.
/// With `reads`, a stream nobody watches is read at its slower cadence, and caught up on demand
/// (`PacedReads`).
public final class ReadPacer: ChannelInboundHandler, RemovableChannelHandler, NIOScheduledCallbackHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    private let grid: WakeupGrid?
    private let interval: TimeAmount
    /// The daemon's paced streams: who watches, and who asks for a catch-up. Without it every
    /// stream is read as if watched.
    private let reads: PacedReads?
    private let unwatchedGrid: WakeupGrid?
    private let mark = ReadMark()
    /// The next read is put off at the unwatched cadence: a joining watcher brings it forward.
    private var nextReadUnwatched = false
    /// Messages are being passed on: a catch-up asked for meanwhile would read in the middle.
    private var passingOn = false
    /// The last read of this wakeup filled its buffer, so the kernel may hold more: read on
    /// until it is drained, or the next wakeup would start a full interval behind.
    private var bufferFilled = false
    /// Reads made at once because the kernel held more; bounded, so a venue that floods the
    /// connection is still read at the interval, not in a tight loop.
    private var drainReads = 0
    public static let maximumDrainReads = 4
    /// A scheduled callback, not a task: no promise or future per read.
    private var nextRead: NIOScheduledCallback?
    /// Set while the handler is in a pipeline; the scheduled read goes through it.
    private var context: ChannelHandlerContext?
    /// Our own descriptor for the socket; nil without one (an embedded channel in tests), and
    /// then every read is NIO's.
    private var descriptor: DuplicatedDescriptor?
    /// What one read of our own takes: a quiet interval's messages fit the first buffer; when
    /// one fills, the rest are read in buffers as large as NIO's largest for a paced stream.
    public static let firstReadCapacity = 16_384
    public static let drainReadCapacity = 65_536
    /// What one wakeup of our own reads takes at most (1 MiB, what NIO's reads would take): a
    /// burst is drained in the interval it arrived in, and a flood still waits for the next one.
    public static let maximumOwnReads = 16

    public init(interval: TimeAmount, reads: PacedReads? = nil) {
        self.interval = interval
        self.reads = reads
        grid = WakeupGrid(period: .nanoseconds(interval.nanoseconds))
        unwatchedGrid = reads.flatMap { WakeupGrid(period: .nanoseconds($0.unwatchedInterval.nanoseconds)) }
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        descriptor = try? context.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
            DuplicatedDescriptor(of: $0)
        } ?? nil
        reads?.register(self, on: context.eventLoop, mark: mark)
        context.read()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    /// No more reads: the socket closes for good once NIO's descriptor and ours are both closed.
    private func stop() {
        reads?.unregister(self)
        mark.neverBehind()
        nextRead?.cancel()
        nextRead = nil
        descriptor = nil
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bufferFilled = unwrapInboundIn(data).writableBytes == 0
        passingOn = true
        context.fireChannelRead(data)
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        passingOn = false
        guard context.channel.isActive, nextRead == nil else { return }
        if bufferFilled, drainReads < Self.maximumDrainReads {
            bufferFilled = false
            drainReads += 1
            readWhenBytesCome(context)
            return
        }
        bufferFilled = false
        drainReads = 0
        scheduleNextRead(context)
    }

    /// Schedules the next read: within the interval while anyone watches (or `watched` says so),
    /// else at the unwatched cadence, and then unread messages may fall behind by more than an
    /// interval from `now + interval` on, which a catch-up looks at.
    private func scheduleNextRead(_ context: ChannelHandlerContext, watched: Bool? = nil) {
        let loop = context.eventLoop, now = loop.now
        let watched = watched ?? reads?.isWatched ?? true
        if watched { mark.neverBehind() } else { mark.behind(after: now + interval) }
        nextReadUnwatched = !watched
        let grid = watched ? grid : unwatchedGrid ?? grid
        // Fails only when the loop is shutting down; the connection goes with it.
        nextRead = try? loop.assumeIsolated().scheduleCallback(at: grid?.point(after: now) ?? now, handler: self)
    }

    public func handleScheduledCallback(eventLoop: some EventLoop) {
        nextRead = nil
        guard let context else { return }
        if !readHeldBytes(context) { readWhenBytesCome(context) }
    }

    /// NIO's read: the socket is armed, and what comes is read at once, so nothing falls behind.
    private func readWhenBytesCome(_ context: ChannelHandlerContext) {
        mark.neverBehind()
        nextReadUnwatched = false
        context.read()
    }

    /// Someone is about to read the price: if unread messages may be more than an interval old,
    /// read them now. A joining watcher also brings a read put off at the unwatched cadence
    /// forward to the interval.
    func catchUp(watcherJoins: Bool) {
        guard let context, context.channel.isActive, !passingOn else { return }
        if mark.isBehind(at: context.eventLoop.now) {
            nextRead?.cancel()
            nextRead = nil
            if !readHeldBytes(context, watched: watcherJoins ? true : nil) { readWhenBytesCome(context) }
        } else if watcherJoins, nextReadUnwatched, nextRead != nil {
            nextRead?.cancel()
            nextRead = nil
            scheduleNextRead(context, watched: true)
        }
    }

    /// Passes on what the kernel holds, in reads of our own (more while each fills its buffer,
    /// up to `maximumOwnReads`), then schedules the next read. False when the first read found
    /// nothing to pass on (empty, ended or failed): NIO's read then waits or reports it.
    private func readHeldBytes(_ context: ChannelHandlerContext, watched: Bool? = nil) -> Bool {
        passingOn = true
        defer { passingOn = false }
        var ownReads = 0
        while ownReads < Self.maximumOwnReads, self.context != nil, context.channel.isActive, let descriptor {
            var buffer = context.channel.allocator.buffer(capacity: ownReads == 0 ? Self.firstReadCapacity : Self.drainReadCapacity)
            let received = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { bytes in
                max(0, recv(descriptor.value, bytes.baseAddress, bytes.count, CInt(MSG_DONTWAIT)))
            }
            guard received > 0 else { break }
            ownReads += 1
            context.fireChannelRead(wrapInboundOut(buffer))
            if buffer.writableBytes > 0 { break }
        }
        guard ownReads > 0 else { return false }
        context.fireChannelReadComplete()
        if self.context != nil, context.channel.isActive, nextRead == nil { scheduleNextRead(context, watched: watched) }
        return true
    }

    public func didCancelScheduledCallback(eventLoop: some EventLoop) {}
}
