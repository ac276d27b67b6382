import Exchanges

/// The names of a setting table's keys (`SettingTable`), for the config file's parser and for
/// "did you mean" hints.
public struct SettingNames: Sendable {
    public let catalog: [Venue]
    /// Every setting, in the order --check-config and the manual list them.
    public let all: [SettingKey]
    private let names: Set<String>

    public static var standard: SettingNames { SettingTable.standard.names }

    /// `keys` in the table's order (`SettingTable`).
    init(catalog: [Venue], keys: [SettingKey]) {
        self.catalog = catalog
        all = keys
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
}
