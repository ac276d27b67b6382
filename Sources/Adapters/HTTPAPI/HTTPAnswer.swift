import ListenerKit
import NIOHTTP1
import WireProtocol

/// What the listener sends for one request: a whole response, or the start of an event stream.
/// Built by `HTTPRoutes` without a socket, so a test reads exactly what a client gets.
public struct HTTPAnswer: Sendable {
    public enum Kind: Sendable, Equatable {
        /// A response with its whole body.
        case complete
        /// `GET /api/v1/events`: the connection becomes an event stream of the topic's lines.
        case events(WatchTopic)
    }

    public var status: HTTPResponseStatus
    public var contentType: String
    /// The fields besides `Content-Type` (`Content-Length`, `Date` and `Connection` are the
    /// connection's to add).
    public var headers: [(String, String)]
    public var body: String
    public var kind: Kind

    public init(status: HTTPResponseStatus, contentType: String, body: String, headers: [(String, String)] = [], kind: Kind = .complete) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.kind = kind
    }

    public static let jsonType = "application/json; charset=utf-8"
    public static let textType = "text/plain; charset=utf-8"

    /// A JSON answer; `line` already ends with a newline, as the socket's replies do.
    public static func json(_ line: String, status: HTTPResponseStatus = .ok, headers: [(String, String)] = []) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: jsonType, body: line, headers: headers)
    }

    /// Every error is JSON too, in the socket's shape: `{"error":"…","message":"…"}`.
    public static func error(_ status: HTTPResponseStatus, _ reply: ErrorReply, headers: [(String, String)] = []) -> HTTPAnswer {
        json(reply.line, status: status, headers: headers)
    }

    public static func error(_ status: HTTPResponseStatus, code: String, _ message: String, headers: [(String, String)] = []) -> HTTPAnswer {
        error(status, ErrorReply(code: code, message: message), headers: headers)
    }

    /// The value of a header, by name in any case.
    public func header(_ name: String) -> String? {
        name.lowercased() == "content-type" ? contentType : headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
