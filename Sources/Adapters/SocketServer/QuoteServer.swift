import PriceCore
import ListenerKit
import Glibc
import Logging
import CoreMetrics
import NIOCore
import NIOPosix
import Synchronization
import WireProtocol

/// Serves wire protocol v1 on a Unix stream socket: either one it binds itself or one inherited
/// from systemd socket activation (which it then must not unlink).
public final class QuoteServer: Sendable {
    public enum Listener: Sendable, Equatable {
        case path(String)
        case inheritedDescriptor(Int32)
    }

    private let context: ServerContext
    private let frontDoor: FrontDoor
    /// Where broadcasts gather their watchers' results.
    private let loop: any EventLoop
    /// The path we bound and the socket file it held then; nil when systemd owns the socket.
    private let owned: (path: String, identity: SocketFile.Identity?)?
    private let shutDown = Mutex(false)

    private init(context: ServerContext, frontDoor: FrontDoor, loop: any EventLoop, owned: (path: String, identity: SocketFile.Identity?)?) {
        self.context = context
        self.frontDoor = frontDoor
        self.loop = loop
        self.owned = owned
    }

    /// Connections the kernel queues for us before we accept them: as many as we serve, so a
    /// burst within the cap is never refused at connect (systemd's socket unit sets `Backlog=`).
    static func backlog(for limits: ServerLimits) -> Int32 { Int32(clamping: max(limits.maximumConnections, 1024)) }

    /// Binds (or adopts) the listening socket. When this returns, clients can connect.
    public static func start(listener: Listener, status: any StatusProvider, version: String,
                             limits: ServerLimits = ServerLimits(), clock: some Clock<Duration> = ContinuousClock(),
                             metrics: any MetricsFactory = MetricsSystem.factory, audience: WatchAudience = WatchAudience(),
                             currencyAudiences: [String: WatchAudience] = [:], logger: Logger,
                             group: any EventLoopGroup) async throws -> QuoteServer {
        let origin = clock.now
        let context = ServerContext(status: status, version: version, limits: limits, metrics: metrics, audience: audience,
                                    currencyAudiences: currencyAudiences, logger: logger) {
            origin.duration(to: clock.now)
        }
        // A `watch`, or a reply too large for the kernel at once, continues in NIO.
        let handOff: @Sendable (CInt, FrontDoor.HandOff, UserOccupant) -> Void = { descriptor, handOff, occupant in
            let arrival: ConnectionHandler.Arrival = switch handOff {
            case .stream(let topic): .watching(topic)
            case .finishReply(let rest): .finishing(rest)
            }
            ClientBootstrap(group: group)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .channelOption(.writeBufferWaterMark, value: .init(low: limits.watchBacklogLimit / 2, high: limits.watchBacklogLimit))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(context: context, arrival: arrival, occupant: occupant))
                    }
                }
                .withConnectedSocket(descriptor)
                // NIO closed the descriptor if it had taken it; the connection is over either way.
                .whenFailure { _ in occupant.leave() }
        }
        let loop = group.next()
        switch listener {
        case .path(let path):
            try SocketFile.prepare(path)
            let (descriptor, identity) = try SocketFile.listen(at: path, backlog: Self.backlog(for: limits))
            let frontDoor: FrontDoor
            do {
                frontDoor = try FrontDoor(listener: descriptor, context: context, stoppedOn: loop, handOff: handOff)
            } catch {
                close(descriptor)
                SocketFile.remove(path, ifStill: identity)
                throw error
            }
            return QuoteServer(context: context, frontDoor: frontDoor, loop: loop, owned: (path, identity))
        case .inheritedDescriptor(let descriptor):
            let frontDoor = try FrontDoor(listener: descriptor, context: context, stoppedOn: loop, handOff: handOff)
            return QuoteServer(context: context, frontDoor: frontDoor, loop: loop, owned: nil)
        }
    }

    /// Sends a status line of `currency` (nil: the primary currency) to every `watch` client
    /// that follows it; the future completes when each has been served or dropped.
    @discardableResult
    public func broadcast(_ line: String, of currency: String? = nil) -> EventLoopFuture<Void> {
        context.watchers.broadcast(line, of: currency, on: loop)
    }

    public var watcherCount: Int { context.watchers.count }
    /// Bytes the daemon holds for `watch` clients that the kernel would not take yet.
    public var watchQueuedBytes: Int { context.watchers.queuedBytes }
    public var openConnections: Int { context.openConnections }

    /// Returns once `condition` (over the counts above) holds, checked after each change to
    /// them, or when the task is cancelled; no polling.
    public func until(_ condition: () -> Bool) async { await context.budget.until(condition) }

    /// Stops accepting, ends `watch` streams and removes the socket file if we created it and
    /// it is still ours. Only the first call does anything.
    public func shutdown() async {
        guard shutDown.withLock({ done in defer { done = true }; return !done }) else { return }
        await frontDoor.stop()
        await context.watchers.closeAll()
        if let owned { SocketFile.remove(owned.path, ifStill: owned.identity) }
    }
}
