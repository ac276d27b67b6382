import JSONText

/// `{"error":"bad-request","message":"…"}` and friends: every failure reply has this shape.
public struct ErrorReply: Error, Sendable, Hashable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public static func badRequest(_ message: String) -> ErrorReply { ErrorReply(code: "bad-request", message: message) }
    public static func busy(_ message: String) -> ErrorReply { ErrorReply(code: "busy", message: message) }
    public static let noData = ErrorReply(code: "nodata", message: "no quote yet: the daemon has not fetched or restored a price")

    public var json: JSONValue { .object(["error": .string(code), "message": .string(message)]) }
    public var line: String { json.encoded + "\n" }

    /// Recognises an error reply among other lines.
    public init?(json: JSONValue) {
        guard let code = json["error"]?.stringValue else { return nil }
        self.init(code: code, message: json["message"]?.stringValue ?? "")
    }
}

public struct VersionReply: Sendable, Hashable {
    public let version: String
    public let protocolVersion: Int

    public init(version: String, protocolVersion: Int = WireProtocol.version) {
        self.version = version
        self.protocolVersion = protocolVersion
    }

    public var line: String {
        JSONValue.object(["version": .string(version), "protocol": .number(String(protocolVersion))]).encoded + "\n"
    }
}

public enum PingReply {
    public static let line = "pong\n"
}
