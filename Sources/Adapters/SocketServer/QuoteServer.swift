import CoreMetrics
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import WireProtocol

/// Serves wire protocol v1 on a Unix stream socket: either one it binds itself or one inherited
/// from systemd socket activation (which it then must not unlink).
public final class QuoteServer: Sendable {
    public enum Listener: Sendable, Equatable {
        case path(String)
        case inheritedDescriptor(Int32)
    }

    private let context: ServerContext
    private let channel: any Channel
    /// The path we bound and the socket file it held then; nil when systemd owns the socket.
    private let owned: (path: String, identity: SocketFile.Identity?)?
    private let shutDown = NIOLockedValueBox(false)

    private init(context: ServerContext, channel: any Channel, owned: (path: String, identity: SocketFile.Identity?)?) {
        self.context = context
        self.channel = channel
        self.owned = owned
    }

    /// Pending connections the kernel queues for us (systemd's socket unit sets its own).
    static let backlog: Int32 = 512

    /// Binds (or adopts) the listening socket. When this returns, clients can connect.
    public static func start(listener: Listener, status: any StatusProvider, version: String,
                             limits: ServerLimits = ServerLimits(), clock: some Clock<Duration> = ContinuousClock(),
                             metrics: any MetricsFactory = MetricsSystem.factory, group: any EventLoopGroup) async throws -> QuoteServer {
        let origin = clock.now
        let context = ServerContext(status: status, version: version, limits: limits, metrics: metrics) { origin.duration(to: clock.now) }
        let bootstrap = ServerBootstrap(group: group)
            // EMFILE/ENFILE on accept: back off for a moment instead of spinning on the listener.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler()) }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: limits.watchBacklogLimit / 2, high: limits.watchBacklogLimit))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(RequestLineDecoder()), ConnectionHandler(context: context))
                }
            }
        switch listener {
        case .path(let path):
            try SocketFile.prepare(path)
            let (descriptor, identity) = try SocketFile.listen(at: path, backlog: Self.backlog)
            let channel: any Channel
            do {
                channel = try await bootstrap.withBoundSocket(descriptor).get()
            } catch {
                close(descriptor)
                SocketFile.remove(path, ifStill: identity)
                throw error
            }
            return QuoteServer(context: context, channel: channel, owned: (path, identity))
        case .inheritedDescriptor(let descriptor):
            let channel = try await bootstrap.withBoundSocket(descriptor).get()
            return QuoteServer(context: context, channel: channel, owned: nil)
        }
    }

    /// Sends a status line to every `watch` client; the future completes when each has been
    /// served or dropped.
    @discardableResult
    public func broadcast(_ line: String) -> EventLoopFuture<Void> {
        context.watchers.broadcast(line, on: channel.eventLoop)
    }

    public var watcherCount: Int { context.watchers.count }
    /// Bytes the daemon holds for `watch` clients that the kernel would not take yet.
    public var watchQueuedBytes: Int { context.watchers.queuedBytes }
    public var openConnections: Int { context.openConnections }

    /// Stops accepting, ends `watch` streams and removes the socket file if we created it and
    /// it is still ours. Only the first call does anything.
    public func shutdown() async {
        guard shutDown.withLockedValue({ done in defer { done = true }; return !done }) else { return }
        try? await channel.close()
        await context.watchers.closeAll()
        if let owned { SocketFile.remove(owned.path, ifStill: owned.identity) }
    }
}
