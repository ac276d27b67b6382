import Exchanges

/// The settings a venue catalog gives: the general ones, then each venue's own (its URLs, then
/// its other settings) with their defaults. The daemon uses `standard` (Venue.catalog); a test may load settings for a
/// catalog of its own, so a venue added there is known to the config file and the environment.
public struct SettingNames: Sendable {
    public let catalog: [Venue]
    /// Every setting, in the order --check-config and the manual list them.
    public let all: [SettingKey]
    private let names: Set<String>

    public static let standard = SettingNames(catalog: Venue.catalog)

    public init(catalog: [Venue]) {
        self.catalog = catalog
        all = SettingKey.general + catalog.flatMap { venue in
            [SettingKey.restURL(venue)] + [SettingKey.streamURL(venue)].compactMap { $0 }
                + venue.settings.flatMap { [SettingKey.venue($0)] + [SettingKey.file(of: $0)].compactMap { $0 } }
        }
        names = Set(all.map(\.rawValue))
    }

    /// The setting called `name`; nil for a name that is not one.
    public func key(_ name: String) -> SettingKey? {
        names.contains(name) ? SettingKey(name) : nil
    }

    /// The closest known setting, for "did you mean" hints on typos.
    func suggestion(for unknown: String) -> SettingKey? {
        all.min { editDistance($0.rawValue, unknown) < editDistance($1.rawValue, unknown) }
            .flatMap { editDistance($0.rawValue, unknown) <= 4 ? $0 : nil }
    }

    /// A venue setting's default: a URL's, or another setting's ("" for an API key or its file).
    func venueDefault(for key: SettingKey) -> String? {
        if let url = catalog.lazy.flatMap({ [$0.rest.url, $0.stream?.url].compactMap { $0 } }).first(where: { $0.key == key.rawValue }) {
            return url.defaultURL
        }
        return catalog.lazy.flatMap(\.settings).first { $0.key == key.rawValue || $0.fileKey == key.rawValue }
            .map { $0.key == key.rawValue ? $0.defaultValue : "" }
    }
}
