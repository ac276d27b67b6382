/// The socket server as the daemon sees it, while it serves: where `watch` lines go. Started
/// by the composition root's `serve` port with the daemon's replies.
public protocol WatcherServer: Sendable {
    /// Hands `line` to every watcher.
    func broadcast(_ line: String)
    var watcherCount: Int { get }
    /// Closes the socket and ends every `watch` stream.
    func shutdown() async
}
