import EventLoopScheduling
import NIOCore

/// Reads a stream at most once per `interval` while messages keep coming, so a busy market
/// wakes the daemon once per publish, not once per trade. Placed first in the pipeline with
/// `autoRead` off: after a read it asks for the next one at most `interval` later, and whatever the
/// kernel gathered meanwhile is read in that one wakeup. When the market is quiet the read
/// stays asked for, so the first message after a lull is read the moment it arrives. A message
/// therefore waits at most one interval in the kernel. Reads fall on the process's wakeup grid of
/// the same interval, where the daemon's other timers that may wait end too.
public final class ReadPacer: ChannelInboundHandler, RemovableChannelHandler, NIOScheduledCallbackHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    private let grid: WakeupGrid?
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

    public init(interval: TimeAmount) {
        grid = WakeupGrid(period: .nanoseconds(interval.nanoseconds))
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        context.read()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        nextRead?.cancel()
        nextRead = nil
        self.context = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        nextRead?.cancel()
        nextRead = nil
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bufferFilled = unwrapInboundIn(data).writableBytes == 0
        context.fireChannelRead(data)
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        guard context.channel.isActive, nextRead == nil else { return }
        if bufferFilled, drainReads < Self.maximumDrainReads {
            bufferFilled = false
            drainReads += 1
            context.read()
            return
        }
        bufferFilled = false
        drainReads = 0
        // Fails only when the loop is shutting down; the connection goes with it.
        let loop = context.eventLoop
        nextRead = try? loop.assumeIsolated().scheduleCallback(at: grid?.point(after: loop.now) ?? loop.now, handler: self)
    }

    public func handleScheduledCallback(eventLoop: some EventLoop) {
        nextRead = nil
        context?.read()
    }

    public func didCancelScheduledCallback(eventLoop: some EventLoop) {}
}
