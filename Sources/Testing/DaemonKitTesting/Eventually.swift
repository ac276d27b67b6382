/// What another task does, waited for: bounded, so a broken service fails instead of hanging.
public struct ConditionNotMet: Error, CustomStringConvertible {
    public let description = "the condition was not met within 10 s"
}

/// Polls `condition` every 5 ms for up to 10 s; throws if it never holds.
public func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<2000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
    guard condition() else { throw ConditionNotMet() }
}
