import NIOCore
import Synchronization

/// Writes lines to watchers, on their event loops, and keeps count of the bytes the daemon
/// holds for all of them together (what the slow-watcher policy weighs).
final class WatchWriter: Sendable {
    private let queued = Atomic<Int>(0)
    /// Called when the bytes held for every watcher together fall to zero.
    private let drained: @Sendable () -> Void

    init(drained: @escaping @Sendable () -> Void = {}) { self.drained = drained }

    /// Bytes waiting in the daemon (not yet handed to the kernel) for all watchers, as of each
    /// watcher's last line.
    var queuedBytes: Int { queued.load(ordering: .relaxed) }

    /// While NIO holds nothing for a watcher, its line goes straight to the socket: NIO's write
    /// path cost more than the system call itself, and with a thousand watchers it was most of
    /// the delay to the last of them. What the kernel does not take, and every line after it
    /// until NIO has drained, goes through NIO, so lines never overtake each other. No promise per
    /// write: what NIO still holds is read back afterwards, though only for a watcher that may be
    /// behind (see `mayHoldBytes`), as reading it is a generic option lookup.
    func write(_ buffer: ByteBuffer, to stream: WatchStream) {
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
    func refreshQueuedBytes(of stream: WatchStream) {
        guard let buffered = try? stream.channel.syncOptions?.getOption(.bufferedWritableBytes) else { return }
        setQueuedBytes(of: stream, to: buffered)
    }

    /// A watcher left: its bytes no longer count.
    func forget(_ stream: WatchStream) {
        guard stream.queuedBytes != 0 else { return }
        if queued.subtract(stream.queuedBytes, ordering: .relaxed).newValue == 0 { drained() }
    }

    private func setQueuedBytes(of stream: WatchStream, to bytes: Int) {
        let change = bytes - stream.queuedBytes
        stream.queuedBytes = bytes
        if change != 0, queued.add(change, ordering: .relaxed).newValue == 0 { drained() }
    }
}
