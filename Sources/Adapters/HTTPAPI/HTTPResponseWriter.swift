import NIOCore
import NIOHTTP1

/// An answer as the bytes of one HTTP/1.1 response, head and body in one buffer: the head has
/// only the fields this listener sends, so there is nothing to sanitize. (NIO's response
/// encoder, with the pipelining and error handlers it needs, wrote three buffers an answer and
/// cost 40 % of the throughput on loopback: scripts/bench 8a.)
enum HTTPResponseWriter {
    static func response(_ answer: HTTPAnswer, version: HTTPVersion, method: HTTPMethod, keepAlive: Bool, date: String,
                         allocator: ByteBufferAllocator) -> ByteBuffer {
        let bodyBytes = answer.body.utf8.count
        var buffer = allocator.buffer(capacity: 256 + bodyBytes)
        // The fixed parts are static text: each is one copy, with no check of a String's form.
        buffer.writeStaticString(version.isAtLeast11 ? "HTTP/1.1 " : "HTTP/1.0 ")
        if answer.status == .ok {
            buffer.writeStaticString("200 OK")
        } else {
            buffer.writeString("\(answer.status.code) \(answer.status.reasonPhrase)")
        }
        buffer.writeStaticString("\r\nContent-Type: ")
        buffer.writeString(answer.contentType)
        buffer.writeStaticString("\r\n")
        for (name, value) in answer.headers {
            buffer.writeString(name)
            buffer.writeStaticString(": ")
            buffer.writeString(value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nContent-Length: ")
        buffer.writeString(String(bodyBytes))
        if !keepAlive {
            buffer.writeStaticString("\r\nConnection: close")
        } else if !version.isAtLeast11 {
            buffer.writeStaticString("\r\nConnection: keep-alive")
        }
        buffer.writeStaticString("\r\n\r\n")
        if method != .HEAD { buffer.writeString(answer.body) }
        return buffer
    }

    /// An event stream's head: no length and no chunks, as the stream ends when the connection does.
    static func eventStreamHead(_ answer: HTTPAnswer, date: String) -> String {
        var raw = "HTTP/1.1 200 OK\r\nContent-Type: \(answer.contentType)\r\n"
        for (name, value) in answer.headers { raw += "\(name): \(value)\r\n" }
        return raw + "Date: \(date)\r\nConnection: close\r\n\r\n"
    }
}

extension HTTPVersion {
    /// HTTP/1.1 or later: a Host header is required, and keep-alive is the default.
    var isAtLeast11: Bool { major > 1 || (major == 1 && minor >= 1) }
}
