import Exchanges

/// Every setting of a venue catalog as data: the general ones, then each venue's own. The
/// daemon uses `standard` (Venue.catalog); a test may load settings for a catalog of its own,
/// so a venue added there is known to the config file and the environment.
public struct SettingTable: Sendable {
    public let specs: [SettingSpec]
    public let names: SettingNames
    private let index: [SettingKey: Int]

    public static let standard = SettingTable(catalog: Venue.catalog)

    public init(catalog: [Venue]) {
        specs = SettingSpec.general + catalog.flatMap(SettingSpec.venue)
        names = SettingNames(catalog: catalog, keys: specs.map(\.key))
        index = Dictionary(uniqueKeysWithValues: specs.enumerated().map { ($0.element.key, $0.offset) })
    }

    /// The standard table for the standard catalog, else one built for `catalog`.
    static func of(_ catalog: [Venue]) -> SettingTable { catalog == Venue.catalog ? standard : SettingTable(catalog: catalog) }

    public func spec(_ key: SettingKey) -> SettingSpec? { index[key].map { specs[$0] } }

    /// The default text of `key` with systemd's directories from `environment`.
    public func defaultText(_ key: SettingKey, catalog: [Venue] = Venue.catalog, environment: [String: String] = [:]) -> String? {
        spec(key)?.defaultText(SettingContext(catalog: catalog, environment: environment))
    }

    /// The settings a flag sets, by flag name (`interval`).
    var flags: [String: SettingKey] {
        Dictionary(uniqueKeysWithValues: specs.compactMap { spec in spec.flag.map { ($0, spec.key) } })
    }
}
