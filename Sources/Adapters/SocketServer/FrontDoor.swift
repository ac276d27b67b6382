import ListenerKit
import CLinux
import Glibc
import NIOCore
import NIOPosix
import PriceCore
import WireProtocol

/// Accepts every connection and answers the one-line requests itself — read the line, write the
/// reply already rendered, close — on one epoll loop on its own thread, as a C server would: a
/// NIO channel and pipeline per connection cost three times the system calls. A `watch`, and a
/// reply the kernel does not take at once, is handed to NIO with its descriptor.
///
/// `@unchecked Sendable` because its only mutable state, `pending`, `acceptResumesAt` and the
/// two buffers, is read and written on the loop's own thread alone (`run` and what it calls);
/// other threads only write to the `wake` eventfd and read the immutable descriptors and context.
final class FrontDoor: @unchecked Sendable {
    private let listener: CInt
    private let acceptor: SocketAcceptor
    private let poller: CInt
    private let wake: CInt
    private let context: ServerContext
    private let handOff: @Sendable (CInt, HandOff, UserOccupant) -> Void
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let stopped: EventLoopPromise<Void>

    /// What NIO takes over.
    enum HandOff {
        /// A `watch` stream of the topic's lines.
        case stream(WatchTopic)
        case finishReply(ByteBuffer)
    }

    /// The connections still sending their request (or turned away and draining), owned by the loop.
    private var pending = PendingRequests<CInt, UserOccupant>()
    private var acceptResumesAt: Duration?
    /// The loop's buffers for a request's bytes and for what is drained before a close, made
    /// once: a connection costs no allocation for them.
    private var chunk = [UInt8](repeating: 0, count: 512)
    private var scratch = [UInt8](repeating: 0, count: 4096)

    /// Takes the listening descriptor (made non-blocking here); starts serving at once.
    init(listener: CInt, context: ServerContext, stoppedOn loop: any EventLoop,
         handOff: @escaping @Sendable (CInt, HandOff, UserOccupant) -> Void) throws {
        self.listener = listener
        acceptor = SocketAcceptor(listener: listener)
        self.context = context
        self.handOff = handOff
        stopped = loop.makePromise()
        guard fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK) == 0 else { throw FrontDoorError("make the listening socket non-blocking") }
        poller = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard poller >= 0 else { throw FrontDoorError("create an epoll instance") }
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            close(poller)
            throw FrontDoorError("create an eventfd")
        }
        pollInput(wake)
        pollInput(listener)
        thread.start()
        thread.submit { [self] _ in
            run()
            stopped.succeed()
        }
    }

    /// Stops accepting, closes the connections still asking, and waits for the loop to end.
    /// The listening descriptor is closed too; the caller removes the socket file.
    func stop() async {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        try? await stopped.futureResult.get()
        try? await thread.shutdownGracefully()
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(poller, &events, Int32(events.count), waitMilliseconds())
            for event in events.prefix(Int(max(0, count))) {
                let descriptor = CInt(truncatingIfNeeded: event.data.fd)
                if descriptor == wake {
                    finish()
                    return
                } else if descriptor == listener {
                    acceptAll()
                } else {
                    readable(descriptor)
                }
            }
            expire()
        }
    }

    private func acceptAll() {
        while true {
            switch acceptor.next() {
            case .drained: return
            case .outOfResources:
                // Out of descriptors: rest the listener a moment instead of spinning on it.
                epoll_ctl(poller, EPOLL_CTL_DEL, listener, nil)
                acceptResumesAt = now() + .milliseconds(100)
                return
            case .connection(let client, let peer):
                switch pending.enter(client, peer: peer, budget: context.budget, at: now(), requestTimeout: context.limits.requestTimeout) {
                case .admitted:
                    // Under load the request is usually there already: read it first, and
                    // poll only a connection still sending (a system call saved per request).
                    readable(client)
                    if pending.contains(client) { pollInput(client) }
                case .turnedAway(let line, let refusal):
                    turnAway(client, saying: line, refusal)
                }
            }
        }
    }

    /// Over a limit: say so, then half-close and drain for a moment (`pending` holds it), because
    /// closing with the client's request still unread could lose the explanation.
    private func turnAway(_ client: CInt, saying line: String, _ refusal: UserBudget.Refusal) {
        context.metrics.reject(refusal)
        _ = line.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
        shutdown(client, Int32(SHUT_WR))
        pollInput(client)
    }

    private func readable(_ client: CInt) {
        guard pending.contains(client) else { return }
        let got = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        if got < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            drop(client)
            return
        }
        // A read that did not fill the buffer took all the kernel held: the usual request, one
        // line in one write, leaves nothing to drain before the close.
        let unread: Unread = got == chunk.count ? .mayRemain : .none
        switch pending.received(chunk.prefix(got), from: client) {
        case .wait: break
        case .answer(let line, let occupant): answer(client, line: line, occupant: occupant, unread: unread)
        case .drop(let occupant): release(client, freeing: occupant)
        }
    }

    /// Whether the client may have sent more than was read when its reply goes out.
    private enum Unread { case none, mayRemain }

    /// The connection leaves the epoll set (if it was in it) by its close, or before NIO takes it over.
    private func answer(_ client: CInt, line: [UInt8], occupant: UserOccupant, unread: Unread) {
        let request = Request.Addressed.parse(line)
        context.metrics.count(try? request.get().request)
        switch RequestResponder.answer(request, status: context.status, version: context.version) {
        case .reply(let line):
            reply(client, line, occupant: occupant, unread: unread)
        case .startStream(let topic):
            if let refusal = occupant.startWatching() {
                context.metrics.reject(refusal)
                reply(client, ErrorReply.busy(context.budget.message(for: refusal)).line, occupant: occupant, unread: unread)
            } else {
                epoll_ctl(poller, EPOLL_CTL_DEL, client, nil)
                handOff(client, .stream(topic), occupant)
            }
        }
    }

    /// Sends `line` straight from the string; only a reply the kernel did not take whole is
    /// copied, for NIO to finish.
    private func reply(_ client: CInt, _ line: String, occupant: UserOccupant, unread: Unread) {
        var line = line
        let (sent, failure) = line.withUTF8 { bytes in
            let sent = send(client, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            return (sent, sent < 0 ? errno : 0)
        }
        let total = line.utf8.count
        if sent == total || (sent < 0 && failure != EAGAIN) {
            if unread == .mayRemain { drainInput(client) }
            close(client)
            occupant.leave()
        } else {
            var rest = ByteBuffer(string: line)
            rest.moveReaderIndex(forwardBy: max(0, sent))
            epoll_ctl(poller, EPOLL_CTL_DEL, client, nil)
            handOff(client, .finishReply(rest), occupant)
        }
    }

    private func expire() {
        let instant = now()
        if let resume = acceptResumesAt, instant >= resume {
            acceptResumesAt = nil
            pollInput(listener)
        }
        for (client, occupant) in pending.expire(at: instant) {
            guard let occupant else {
                release(client, freeing: nil)
                continue
            }
            context.metrics.reject(.requestTimeout)
            reply(client, ErrorReply.badRequest("no complete request line within \(context.limits.requestTimeout.humanReadable)").line, occupant: occupant,
                  unread: .mayRemain)
        }
    }

    /// Until the next deadline; forever when nothing waits (an idle daemon is never woken).
    private func waitMilliseconds() -> Int32 { pending.waitMilliseconds(at: now(), alsoUntil: acceptResumesAt) }

    /// Reads what the client sent beyond its request (bounded) before the close: closing a Unix
    /// socket with unread bytes resets it, and the client would see ECONNRESET after its reply.
    private func drainInput(_ client: CInt) {
        for _ in 0..<16 {
            let got = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got <= 0 { break }
        }
    }

    /// A connection that failed: no longer pending, closed, its place freed.
    private func drop(_ client: CInt) {
        guard pending.contains(client) else { return }
        release(client, freeing: pending.remove(client))
    }

    /// Stops polling `client`, closes it and frees the place it held, if any.
    private func release(_ client: CInt, freeing occupant: UserOccupant?) {
        epoll_ctl(poller, EPOLL_CTL_DEL, client, nil)
        close(client)
        occupant?.leave()
    }

    private func finish() {
        for client in pending.connections { drop(client) }
        close(listener)
        close(wake)
        close(poller)
    }

    /// Adds a descriptor to the epoll set, for input and hang-up.
    private func pollInput(_ descriptor: CInt) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        event.data.fd = descriptor
        epoll_ctl(poller, EPOLL_CTL_ADD, descriptor, &event)
    }

    /// The server's injected clock: request deadlines are tested on a ManualClock. The loop
    /// notices a deadline the clock passed when it next wakes (an event, or its own timeout).
    private func now() -> Duration { context.now() }
}

struct FrontDoorError: Error, CustomStringConvertible {
    let description: String
    init(_ what: String) { description = "cannot \(what): \(String(cString: strerror(errno)))" }
}
