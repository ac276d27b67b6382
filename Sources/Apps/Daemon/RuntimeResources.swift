import DaemonConfig
import DaemonKit
import EventLoopScheduling
import FileStore
import NIOCore
import NIOPosix
import Systemd
import TorCircuits
import WireProtocol

/// What a run holds outside the daemon: the listeners systemd passed, the event loop, the state
/// directory's lock, the shared limits directory, and the venues' routes (HTTP clients, Tor
/// relays). `close` lets go of them.
struct RuntimeResources {
    let listeners: SocketActivation.Listeners
    /// One event loop carries the socket, HTTP, the streams and the daemon's own tasks and timers
    /// (EventLoopClock: its sleeps are the loop's timers).
    let group: MultiThreadedEventLoopGroup
    let loop: any EventLoop
    /// The loop's timers, gathered on the publish interval's grid.
    let clock: EventLoopClock
    let lock: StateDirectoryLock
    let hostPace: FileHostPace?
    let routes: VenueRoutes

    /// Takes the state directory's lock before any file in it is touched: a second daemon stops here.
    static func open(_ settings: DaemonSettings) async throws(DaemonStartError) -> RuntimeResources {
        let listeners: SocketActivation.Listeners, lock: StateDirectoryLock, hostPace: FileHostPace?
        do { listeners = try SocketActivation.inheritedListeners() } catch { throw DaemonStartError("cannot serve the socket: \(error)") }
        do { lock = try StateDirectoryLock(directory: settings.stateDirectory) } catch { throw DaemonStartError("cannot use the state directory: \(error)") }
        do { hostPace = try settings.limitsDirectory.map { directory throws(StoreError) in try FileHostPace(directory: directory) } } catch {
            throw DaemonStartError("cannot use the shared limits directory (BTCPRICED_LIMITS_DIR): \(error)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let routes = try await VenueRoutes.open(settings, group: group, userAgent: "btcpriced/\(ProductVersion.current)")
            let loop = group.next()
            return RuntimeResources(listeners: listeners, group: group, loop: loop, clock: EventLoopClock(loop, grid: WakeupGrid(period: settings.publishInterval)),
                                    lock: lock, hostPace: hostPace, routes: routes)
        } catch {
            try? await group.shutdownGracefully()
            throw DaemonStartError("cannot open the per-venue Tor circuit relays on 127.0.0.1: \(error)")
        }
    }

    func close() async {
        await routes.shutdown()
        try? await group.shutdownGracefully()
        withExtendedLifetime(lock) {}
    }
}
