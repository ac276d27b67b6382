import Exchanges

/// A venue's own settings as table entries, from its catalog entry: its REST URL, its stream
/// URL, then its other settings (a symbol, a budget, an API key and the key's file).
extension SettingSpec {
    static func venue(_ venue: Venue) -> [SettingSpec] {
        var specs = [restURL(venue)]
        if let stream = venue.stream { specs.append(streamURL(venue, stream.url)) }
        for setting in venue.settings {
            switch setting.kind {
            case .symbol, .wholeNumber: specs.append(option(setting))
            case .apiKey: specs += apiKey(venue, setting)
            }
        }
        return specs
    }

    private static func restURL(_ venue: Venue) -> SettingSpec {
        let key = SettingKey.restURL(venue), name = venue.name
        return SettingSpec(key, \.restURLs[name], doc: "`\(venue.rest.url.defaultURL)`", default: { _ in venue.rest.url.defaultURL },
                           read: { settings, reader throws(ConfigError) in
                               let plainHosts = settings.plainHTTPHosts
                               settings.restURLs[name] = try reader.value(key) { ValueParsers.baseURL($0, plainHosts: plainHosts) }
                           })
    }

    private static func streamURL(_ venue: Venue, _ url: URLSetting) -> SettingSpec {
        let key = SettingKey(url.key), name = venue.name
        return SettingSpec(key, \.streamURLs[name], doc: "`\(url.defaultURL)`", reload: .atRestart(.stream), default: { _ in url.defaultURL },
                           read: { settings, reader throws(ConfigError) in
                               let plainHosts = settings.plainHTTPHosts
                               settings.streamURLs[name] = try reader.value(key) { ValueParsers.streamURL($0, plainHosts: plainHosts) }
                           })
    }

    /// A symbol or a whole number, kept as validated text for the venue's requests.
    private static func option(_ setting: VenueSetting) -> SettingSpec {
        let key = SettingKey.venue(setting)
        return SettingSpec(key, \.venueValues[setting.key], doc: "`\(setting.defaultValue)`", default: { _ in setting.defaultValue },
                           read: { settings, reader throws(ConfigError) in
                               switch setting.kind {
                               case .wholeNumber(let range): settings.venueValues[setting.key] = String(try reader.value(key, ValueParsers.wholeNumber(in: range)))
                               default: settings.venueValues[setting.key] = try reader.value(key, ValueParsers.symbol)
                               }
                           })
    }

    /// The key and the file it may be read from; both unset by default, and secret.
    private static func apiKey(_ venue: Venue, _ setting: VenueSetting) -> [SettingSpec] {
        let key = SettingKey.venue(setting), name = venue.name
        var specs = [SettingSpec(key, \.apiKeys[name], doc: "unset (\(name) is skipped without a key)", default: { _ in "" },
                                 read: { settings, reader throws(ConfigError) in
                                     settings.apiKeys[name] = try reader.value(key) { text in
                                         text.isEmpty ? .success(nil) : APIKeyResolver.validate(text).map { .some($0) }
                                     }
                                 })]
        if let fileKey = SettingKey.file(of: setting), let credential = setting.credential {
            specs.append(SettingSpec(fileKey, \.apiKeyFiles[name], doc: "unset; else `$CREDENTIALS_DIRECTORY/\(credential)` if present",
                                     default: { _ in "" },
                                     read: { settings, reader throws(ConfigError) in
                                         settings.apiKeyFiles[name] = try reader.value(fileKey) { .success($0.isEmpty ? nil : $0) }
                                     }))
        }
        return specs
    }
}
