import Logging

/// The rule every keeper follows when it writes to disk: one error line when an operation starts
/// failing and one line when it works again, however often it is retried in between.
public struct OutageLog: Sendable {
    private let logger: Logger
    private(set) var isFailing = false

    public init(logger: Logger) { self.logger = logger }

    /// Logs `message` if this failure starts an outage; returns whether it did.
    @discardableResult
    public mutating func failed(_ error: any Error, _ message: @autoclosure () -> String) -> Bool {
        guard !isFailing else { return false }
        isFailing = true
        logger.error("\(message())", metadata: ["error": "\(error)"])
        return true
    }

    /// Logs `message` if this success ends an outage; returns whether it did.
    @discardableResult
    public mutating func succeeded(_ message: @autoclosure () -> String) -> Bool {
        guard isFailing else { return false }
        isFailing = false
        logger.info("\(message())")
        return true
    }
}
