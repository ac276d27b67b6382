import Logging
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
    private let ownedPath: String?

    private init(context: ServerContext, channel: any Channel, ownedPath: String?) {
        self.context = context
        self.channel = channel
        self.ownedPath = ownedPath
    }

    /// Binds (or adopts) the listening socket. When this returns, clients can connect.
    public static func start(listener: Listener, status: any StatusProvider, version: String,
                             limits: ServerLimits = ServerLimits(), clock: some Clock<Duration> = ContinuousClock(),
                             group: any EventLoopGroup) async throws -> QuoteServer {
        let origin = clock.now
        let context = ServerContext(status: status, version: version, limits: limits) { origin.duration(to: clock.now) }
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
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
            let channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
            do {
                try SocketFile.setWorldReadable(path)
            } catch {
                try? await channel.close()
                SocketFile.remove(path)
                throw error
            }
            return QuoteServer(context: context, channel: channel, ownedPath: path)
        case .inheritedDescriptor(let descriptor):
            let channel = try await bootstrap.withBoundSocket(descriptor).get()
            return QuoteServer(context: context, channel: channel, ownedPath: nil)
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

    /// Stops accepting, ends `watch` streams and removes the socket file if we created it.
    public func shutdown() async {
        try? await channel.close()
        await context.watchers.closeAll()
        if let ownedPath { SocketFile.remove(ownedPath) }
    }
}
