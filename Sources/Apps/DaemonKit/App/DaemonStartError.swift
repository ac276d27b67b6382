/// Why the daemon could not start serving.
public struct DaemonStartError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
