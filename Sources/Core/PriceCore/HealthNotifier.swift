/// The service manager the daemon reports to: systemd's notify socket in production, a
/// recorder in tests. Outside a service manager every call is a no-op.
public protocol HealthNotifier: Sendable {
    /// Whether a service manager listens at all; when none does, no status text is made.
    var isActive: Bool { get }
    func status(_ text: String)
    func watchdog()
    /// Serving: READY=1, with the status.
    func ready(status: String?)
    /// Re-reading the configuration; `ready` follows when it is done, whatever the outcome.
    func reloading(status: String?)
    /// Stopping on request: STOPPING=1.
    func stopping(status: String?)
}

extension HealthNotifier {
    public var isActive: Bool { true }
}
