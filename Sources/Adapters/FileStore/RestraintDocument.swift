#if canImport(Glibc)
import Glibc
#endif
import JSONText
import PriceCore

/// `sources.json`: the cool-downs and budgeted calls that must survive a restart.
/// `{"version":1,"sources":{"<venue>":{"resting_until":"…","stream_refused_until":"…"},"<keyed venue>":{"last_call":"…","calls_by_hour":{"1795309200000":312}}}}`
/// (`stream_refused_until` came later; files without it read as before.)
public enum RestraintDocument {
    public static let formatVersion = 1

    public static func encode(_ restraints: [SourceName: SourceRestraint]) -> String {
        let sources = restraints.keys.sorted { $0.rawValue < $1.rawValue }.compactMap { name -> JSONMember? in
            guard let restraint = restraints[name] else { return nil }
            let hours = restraint.callsByHourEnd.keys.sorted().map { JSONMember(key: String($0), value: .number(String(restraint.callsByHourEnd[$0] ?? 0))) }
            return JSONMember(key: name.rawValue, value: .object([
                "resting_until": .string(orNull: restraint.restingUntil?.rfc3339),
                "last_call": .string(orNull: restraint.lastCall?.rfc3339),
                "calls_by_hour": .object(JSONObject(members: hours)),
                "stream_refused_until": .string(orNull: restraint.streamRefusedUntil?.rfc3339),
            ]))
        }
        return JSONValue.object(["version": .number(String(formatVersion)), "sources": .object(JSONObject(members: sources))]).encoded + "\n"
    }

    public static func decode(_ bytes: [UInt8]) throws(QuoteDocumentError) -> [SourceName: SourceRestraint] {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw QuoteDocumentError("not JSON (\(error))") }
        guard json["version"]?.numberLiteral == String(formatVersion) else { throw QuoteDocumentError("unsupported or missing format version") }
        guard case .object(let sources)? = json["sources"] else { throw QuoteDocumentError("no sources object") }
        var result: [SourceName: SourceRestraint] = [:]
        for member in sources.members {
            var restraint = SourceRestraint()
            func time(_ key: String) throws(QuoteDocumentError) -> Timestamp? {
                guard let value = member.value[key], !value.isNull else { return nil }
                guard let text = value.stringValue, let timestamp = Timestamp(rfc3339: text) else {
                    throw QuoteDocumentError("\(member.key).\(key) is not an RFC 3339 time")
                }
                return timestamp
            }
            restraint.restingUntil = try time("resting_until")
            restraint.lastCall = try time("last_call")
            restraint.streamRefusedUntil = try time("stream_refused_until")
            if case .object(let hours)? = member.value["calls_by_hour"] {
                for hour in hours.members {
                    guard let end = Int64(hour.key), let count = hour.value.numberLiteral.flatMap({ Int($0) }), count >= 0 else {
                        throw QuoteDocumentError("\(member.key).calls_by_hour has a bad entry")
                    }
                    restraint.callsByHourEnd[end] = count
                }
            }
            result[SourceName(member.key)] = restraint
        }
        return result
    }
}

/// Keeps `sources.json` beside `quote.json`, written the same atomic, durable way.
public struct FileRestraintStore: RestraintStore {
    public static let fileName = "sources.json"
    static let tempPrefix = ".sources.json.tmp."

    public let directory: String
    public var path: String { directory + "/" + Self.fileName }

    public init(directory: String) { self.directory = directory }

    /// Empty when there is no file; throws a reason when it is unreadable, and the caller starts
    /// without it (it only ever makes the daemon more careful).
    public func load() throws -> [SourceName: SourceRestraint] {
        switch try StateFile(path: path, limit: 64 * 1024, holding: "source restraints").read() {
        case .missing: return [:]
        case .notOurs(let reason): throw QuoteDocumentError(reason)
        case .contents(let bytes): return try RestraintDocument.decode(bytes)
        }
    }

    public func save(_ restraints: [SourceName: SourceRestraint]) throws {
        let temp = directory + "/" + Self.tempPrefix + String(getpid())
        try FileSystem.writeDurably(Array(RestraintDocument.encode(restraints).utf8), to: path, via: temp, mode: 0o644)
    }
}
