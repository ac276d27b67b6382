import Exchanges
import PriceCore

/// Finds each keyed venue's API key (`VenueSetting.Kind.apiKey`): its `_FILE` setting, else the
/// key setting itself, else its systemd credential (`LoadCredential=`). Errors name the file,
/// never its content.
public enum APIKeyResolver {
    static let longestKey = 512

    /// `read` returns a file's text, nil when it does not exist, and throws when it cannot be read.
    public static func resolve(_ settings: DaemonSettings, environment: [String: String],
                               read: (String) throws -> String?) throws(ConfigError) -> DaemonSettings {
        var settings = settings
        for venue in settings.catalog {
            guard let setting = venue.apiKey, let fileKey = setting.fileKey, let credential = setting.credential else { continue }
            if let path = settings.apiKeyFiles[venue.name] {
                guard settings.apiKeys[venue.name] == nil else {
                    throw ConfigError("both \(setting.key) and \(fileKey) are set; keep only the file")
                }
                settings.apiKeys[venue.name] = try key(fromFile: path, named: fileKey, required: true, read: read)
            } else if settings.apiKeys[venue.name] == nil, let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
                settings.apiKeys[venue.name] = try key(fromFile: directory + "/" + credential, named: "the systemd credential \(credential)",
                                                       required: false, read: read)
            }
        }
        return settings
    }

    static func key(fromFile path: String, named origin: String, required: Bool,
                    read: (String) throws -> String?) throws(ConfigError) -> APIKey? {
        guard let line = try SecretFile.firstLine(path, named: origin, what: "the key", required: required, read: read) else { return nil }
        switch validate(line) {
        case .success(let key): return key
        case .failure(let reason): throw ConfigError("\(origin): the key in \(path) \(reason.reason)")
        }
    }

    /// Printable ASCII without spaces, as the venue issues them; the reason never quotes the key.
    static func validate(_ text: String) -> Result<APIKey, InvalidValue> {
        guard !text.isEmpty else { return .failure("is empty") }
        guard text.utf8.count <= longestKey else { return .failure("is longer than \(longestKey) characters") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure("contains spaces or characters that are not printable ASCII")
        }
        return .success(APIKey(text))
    }
}
