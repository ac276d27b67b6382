import Glibc
import WireProtocol

/// Why a query failed, phrased for a person at a prompt.
public struct ClientError: Error, Equatable, Sendable {
    public let message: String
}

/// A blocking Unix-socket client whose every step is bounded by one deadline.
public struct UnixSocketClient {
    private let fd: Int32
    /// The socket it connected to, for messages.
    public let path: String
    private let deadline: Int64
    private var buffer: [UInt8] = []
    /// While waiting, also notice when standard output's reader is gone (a bar that quit), so
    /// a watching client ends at once instead of at its next write.
    public var endsWithItsReader = false

    /// Connects, failing fast with the OS's reason when nothing listens. `pause` waits the given
    /// microseconds between tries at a full accept queue (a test passes its own, to act there).
    public init(path: String, timeoutMilliseconds: Int, pause: (UInt32) -> Void = UnixSocketClient.sleep(microseconds:)) throws(ClientError) {
        self.path = path
        self.deadline = monotonicMilliseconds() + Int64(timeoutMilliseconds)
        guard path.utf8.count <= UnixSocketAddress.maximumPathLength else {
            throw ClientError(message: "socket path \(path) is longer than \(UnixSocketAddress.maximumPathLength) bytes")
        }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ClientError(message: "cannot create a socket: \(errorText(errno))") }
        var wait: UInt32 = 1000
        while UnixSocketAddress.connect(fd, to: path) != 0 {
            let code = errno
            if code == EINTR { continue }
            // A full accept queue on a non-blocking Unix socket says EAGAIN: the daemon is alive
            // but has a burst of clients to accept (a thousand panes refreshing at once). Unix
            // sockets never signal when room frees up, so try again, briefly, until the deadline.
            if code == EAGAIN {
                if monotonicMilliseconds() + Int64(wait / 1000) < deadline {
                    pause(wait)
                    wait = min(wait * 2, 16_000)
                    continue
                }
                close(fd)
                throw ClientError(message: "\(path) is not accepting connections (btcpriced overloaded or stuck?)")
            }
            close(fd)
            // Linux says "Connection refused" for a path that exists but is no socket at all.
            var info = stat()
            if code == ECONNREFUSED, stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
                throw ClientError(message: "cannot connect to \(path): it is not a socket (give btcpriced's socket with --socket or BTCCTL_SOCKET)")
            }
            let hint = code == ENOENT || code == ECONNREFUSED ? " (is btcpriced running?)" : code == EACCES ? " (check the socket's permissions)" : ""
            throw ClientError(message: "cannot connect to \(path): \(errorText(code))\(hint)")
        }
    }

    public func closeConnection() { close(fd) }

    public static func sleep(microseconds: UInt32) { usleep(microseconds) }

    /// Signals end of request to the server, as `nc -N` does.
    public func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    public func send(_ text: String) throws(ClientError) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { try waitUntil(POLLOUT); continue }
                throw ClientError(message: "cannot send to \(path): \(errorText(errno))")
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// The next line without its newline, or nil at end of stream. With `unbounded`, waits
    /// forever (for `watch`); otherwise until the deadline.
    public mutating func readLine(unbounded: Bool = false) throws(ClientError) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                if buffer.count > 1 << 20 { throw ClientError(message: "reply from \(path) is unreasonably long") }
            } else if count == 0 {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            } else if errno == EAGAIN {
                try waitUntil(POLLIN, unbounded: unbounded)
            } else if errno != EINTR {
                throw ClientError(message: "cannot read from \(path): \(errorText(errno))")
            }
        }
    }

    /// Whether a line is buffered or the socket has something to read (data or its end)
    /// within the time given; for pacing a stream without blocking on it.
    public func hasInput(withinMilliseconds milliseconds: Int32) throws(ClientError) -> Bool {
        if buffer.contains(UInt8(ascii: "\n")) { return true }
        while true {
            let ready = wait(for: POLLIN, milliseconds: max(0, milliseconds))
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { throw ClientError(message: "cannot wait for \(path): \(errorText(errno))") }
        }
    }

    private func waitUntil(_ event: Int32, unbounded: Bool = false) throws(ClientError) {
        while true {
            let remaining = unbounded ? -1 : Int32(clamping: max(0, deadline - monotonicMilliseconds()))
            let ready = wait(for: event, milliseconds: remaining)
            if ready > 0 { return }
            if ready < 0 && errno == EINTR { continue }
            throw ClientError(message: "no answer from \(path) within the timeout (is btcpriced stuck? try --timeout)")
        }
    }

    /// poll(2) on the socket, and on standard output too when `endsWithItsReader`.
    private func wait(for event: Int32, milliseconds: Int32) -> Int32 {
        guard endsWithItsReader else {
            var descriptor = pollfd(fd: fd, events: Int16(event), revents: 0)
            return poll(&descriptor, 1, milliseconds)
        }
        var descriptors = (pollfd(fd: fd, events: Int16(event), revents: 0), Output.readerWatch)
        let ready = withUnsafeMutableBytes(of: &descriptors) { poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, milliseconds) }
        Output.endIfReaderGone(descriptors.1)
        return descriptors.0.revents != 0 ? 1 : (ready < 0 ? ready : 0)
    }
}

func monotonicMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}

func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
