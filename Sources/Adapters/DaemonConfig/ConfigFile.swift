import PriceCore
/// One `KEY=value` assignment and where it was written.
public struct ConfigAssignment: Sendable, Equatable {
    public let key: String
    public let value: String
    public let line: Int
}

/// A problem in the configuration, with where it is, in words an operator can act on.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Parses the systemd EnvironmentFile syntax strictly: `KEY=value`, `#`/`;` comments, blank
/// lines, values optionally in single or double quotes. Anything else is an error naming file:line.
public enum ConfigFile {
    /// `names` are the settings a key may name (those of the venue catalog in use).
    public static func parse(_ text: String, path: String, names: SettingNames = .standard) throws(ConfigError) -> [ConfigAssignment] {
        var assignments: [ConfigAssignment] = []
        var firstLine: [String: Int] = [:]
        // "\r\n" is one Character in Swift, so split on both.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let where_ = "\(path):\(number)"
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            line = line.trimmingBlanks
            if line.isEmpty || line.first == "#" || line.first == ";" { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError("\(where_): expected KEY=value, found \(quoted(line))")
            }
            let key = String(line[..<equals].trimmingBlanks)
            guard isValidName(key) else {
                throw ConfigError("\(where_): \(quoted(key)) is not a valid setting name (letters, digits and _)")
            }
            guard key.hasPrefix(SettingKey.prefix) else {
                throw ConfigError("\(where_): \(key.count > 64 ? key.prefix(64) + "…" : key) is not a btcpriced setting; every key starts with \(SettingKey.prefix)")
            }
            guard names.key(key) != nil else {
                let hint = names.suggestion(for: key).map { " (did you mean \($0.rawValue)?)" } ?? ""
                throw ConfigError("\(where_): unknown setting \(key.count > 64 ? key.prefix(64) + "…" : key)\(hint)")
            }
            if let first = firstLine[key] {
                throw ConfigError("\(where_): \(key) is already set on line \(first); keep one of them")
            }
            firstLine[key] = number
            let value = try unquote(line[line.index(after: equals)...].trimmingBlanks, at: where_)
            assignments.append(ConfigAssignment(key: key, value: value, line: number))
        }
        return assignments
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    static func unquote(_ value: Substring, at where_: String) throws(ConfigError) -> String {
        guard let quote = value.first, quote == "\"" || quote == "'" else {
            guard value.last != "\\" else { throw ConfigError("\(where_): line continuations (trailing \\) are not supported") }
            return String(value)
        }
        guard value.count >= 2, value.last == quote else {
            throw ConfigError("\(where_): the value starts with \(quote) but does not end with it")
        }
        let inner = value.dropFirst().dropLast()
        guard quote == "\"" else { return String(inner) }
        var result = ""
        var escaped = false
        for character in inner {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}


/// An echoed value in an error: quoted, escaped and cut to a readable length, so a 1 MB value
/// costs one short line in the journal. The cut counts `limit` characters and also the escaped
/// text, at most twice that many bytes: a control character escapes to seven (`\u{17}`).
func quoted(_ text: some StringProtocol, limit: Int = 80) -> String {
    let value = String(text)
    var shown = "", count = 0
    for character in value.prefix(limit) {
        let escaped = String(character).debugDescription.dropFirst().dropLast()
        guard shown.utf8.count + escaped.utf8.count <= 2 * limit else { break }
        shown += escaped
        count += 1
    }
    return "\"" + shown + "\"" + (count < value.count ? "… (\(value.utf8.count) bytes)" : "")
}
