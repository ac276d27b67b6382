/// A secret kept in a file (an API key, a broker password), read the one way: its first line,
/// with errors that name the file and never its content.
enum SecretFile {
    /// The first line of `path`, blanks at its ends trimmed; nil when the file does not exist
    /// and is not `required`. `what` names the secret in the advice ("the key").
    static func firstLine(_ path: String, named origin: String, what: String, required: Bool,
                          read: (String) throws -> String?) throws(ConfigError) -> String? {
        let text: String?
        do {
            text = try read(path)
        } catch let error as ConfigError {
            throw ConfigError("\(origin): \(error)")
        } catch {
            throw ConfigError("\(origin): cannot read \(path): \(error); check its owner and mode (the daemon must be able to read it)")
        }
        guard let text else {
            if required { throw ConfigError("\(origin): \(path) does not exist; create it with \(what) on one line") }
            return nil
        }
        return String((text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first ?? "").trimmingBlanks)
    }
}
