import NIOCore

/// When one HTTP connection may be closed, as a pure machine on the time its caller gives (the
/// event loop's, or a test's own deadlines): a connection that sends no complete request within
/// the request timeout, at its start or after an answer, is closed; one that streams events is
/// never idle; and at stop each ends as its phase allows (`drain`).
public struct HTTPConnectionLifecycle: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Waiting for a complete request since then (its start, or the last answer).
        case waiting(since: NIODeadline)
        case answering
        case streaming
    }

    /// What the idle timer does when it fires.
    public enum Check: Equatable, Sendable {
        case close
        case checkAgain(at: NIODeadline)
        /// Streaming: no more checks.
        case quiet
    }

    /// What stopping the listener does to the connection.
    public enum Drain: Equatable, Sendable {
        /// Nothing is under way: close it now.
        case closeNow
        /// An answer is being made: it goes out with `Connection: close`, then the connection closes.
        case closeAfterAnswer
        /// An event stream: it gets its last event, then closes.
        case lastEvent
    }

    public let requestTimeout: TimeAmount
    public private(set) var phase: Phase
    /// The listener stops: no answer keeps the connection alive.
    public private(set) var draining = false

    public init(requestTimeout: TimeAmount, openedAt now: NIODeadline) {
        self.requestTimeout = requestTimeout
        phase = .waiting(since: now)
    }

    /// When the idle timer first looks.
    public var firstCheck: NIODeadline? {
        guard case .waiting(let since) = phase else { return nil }
        return since + requestTimeout
    }

    /// A complete request came: it is being answered, and the idle clock stops.
    public mutating func requestArrived() {
        if phase != .streaming { phase = .answering }
    }

    /// The answer is written; returns whether the connection stays open for the next request
    /// (keep-alive asked for, and the listener not stopping).
    public mutating func answered(keepAlive: Bool, at now: NIODeadline) -> Bool {
        guard keepAlive, !draining else { return false }
        phase = .waiting(since: now)
        return true
    }

    public mutating func startedStreaming() { phase = .streaming }

    public func check(at now: NIODeadline) -> Check {
        switch phase {
        case .streaming: .quiet
        case .answering: .checkAgain(at: now + requestTimeout)
        case .waiting(let since): since + requestTimeout <= now ? .close : .checkAgain(at: since + requestTimeout)
        }
    }

    public mutating func drain() -> Drain {
        draining = true
        switch phase {
        case .waiting: return .closeNow
        case .answering: return .closeAfterAnswer
        case .streaming: return .lastEvent
        }
    }
}
