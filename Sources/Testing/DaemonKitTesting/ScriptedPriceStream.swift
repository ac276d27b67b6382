import PriceCore
import Synchronization

/// A price stream that follows a script, one entry per connection: no socket, no exchange.
public final class ScriptedPriceStream: PriceStream {
    public enum Connection: Sendable {
        /// Declines the connection with this HTTP status.
        case refuse(Int)
        /// Opens, delivers these messages, then stays open and silent until it is given up.
        case open([[StreamEvent]])
    }

    private let script: Mutex<[Connection]>
    private let started = Mutex(0)

    public init(_ script: [Connection]) { self.script = Mutex(script) }

    /// Connections asked for so far.
    public var connections: Int { started.withLock { $0 } }

    public func run<Instant>(opened: @escaping @Sendable () -> Void,
                      received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
        started.withLock { $0 += 1 }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        switch next {
        case nil:
            return .failed("the script has no more connections")
        case .refuse(let status):
            return .refused(status: status)
        case .open(let messages):
            opened()
            for message in messages { received(message) }
            // Silent until cancelled, as a venue that stopped sending.
            for await _ in AsyncStream<Never>(Never.self, { _ in }) {}
            return .closed("cancelled")
        }
    }
}
