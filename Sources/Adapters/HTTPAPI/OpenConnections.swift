import NIOCore
import Synchronization

/// The listener's open connections, for its drain at stop: added as a connection becomes
/// active, removed as it closes.
final class OpenConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = channel } }

    func remove(_ channel: any Channel) { _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

    var all: [any Channel] { channels.withLock { Array($0.values) } }
}
