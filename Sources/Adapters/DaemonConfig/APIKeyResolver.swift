import PriceCore
/// Finds the CryptoCompare API key: `BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE`, else
/// `BTCPRICED_CRYPTOCOMPARE_API_KEY`, else the systemd credential `cryptocompare-api-key`
/// (`LoadCredential=`). Errors name the file, never its content.
public enum APIKeyResolver {
    public static let credentialName = "cryptocompare-api-key"
    static let longestKey = 512

    /// `read` returns a file's text, nil when it does not exist, and throws when it cannot be read.
    public static func resolve(_ settings: DaemonSettings, environment: [String: String],
                               read: (String) throws -> String?) throws(ConfigError) -> DaemonSettings {
        var settings = settings
        if let path = settings.cryptoCompareAPIKeyFile {
            guard settings.cryptoCompareAPIKey == nil else {
                throw ConfigError("both BTCPRICED_CRYPTOCOMPARE_API_KEY and BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE are set; keep only the file")
            }
            settings.cryptoCompareAPIKey = try key(fromFile: path, named: "BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE", required: true, read: read)
        } else if settings.cryptoCompareAPIKey == nil, let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            settings.cryptoCompareAPIKey = try key(fromFile: directory + "/" + credentialName, named: "the systemd credential \(credentialName)",
                                                   required: false, read: read)
        }
        return settings
    }

    static func key(fromFile path: String, named origin: String, required: Bool,
                    read: (String) throws -> String?) throws(ConfigError) -> APIKey? {
        let text: String?
        do {
            text = try read(path)
        } catch let error as ConfigError {
            throw ConfigError("\(origin): \(error)")
        } catch {
            throw ConfigError("\(origin): cannot read \(path): \(error); check its owner and mode (the daemon must be able to read it)")
        }
        guard let text else {
            if required { throw ConfigError("\(origin): \(path) does not exist; create it with the key on one line") }
            return nil
        }
        let trimmed = String((text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first ?? "").trimmingBlanks)
        switch validate(trimmed) {
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
