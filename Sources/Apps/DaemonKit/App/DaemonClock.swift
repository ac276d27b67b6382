/// The daemon's clock in production: ContinuousClock's time, with the sleeps of the clock it
/// wraps (timers on the event loop). Its one concrete type lets the stream's per-read path be
/// specialised for it (`@_specialize`). The daemon's services are generic over their clock, so
/// that tests can drive time, and `ServiceGroup` reaches them through `any Service`, where
/// nothing is specialised: without it every read pays for generic metadata lookups.
public struct DaemonClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    private let sleeper: @Sendable (Instant, Duration?) async throws -> Void
    public let minimumResolution: Duration

    /// `base` must keep ContinuousClock's time: only its sleeps are used.
    public init<Base: Clock & Sendable>(sleepingOn base: Base) where Base.Instant == Instant, Base.Duration == Duration {
        sleeper = { try await base.sleep(until: $0, tolerance: $1) }
        minimumResolution = base.minimumResolution
    }

    public var now: Instant { .now }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleeper(deadline, tolerance)
    }
}
