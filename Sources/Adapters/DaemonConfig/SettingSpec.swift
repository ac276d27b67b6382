import Exchanges

/// One setting as data: its name, its default, how its text becomes a field of
/// `DaemonSettings`, what it must agree with, its line in the README's table, and whether a
/// reload applies it. The loader, the reload, `--help`'s flags and the docs' drift tests all
/// read the table (`SettingTable`), so a key exists in one place.
public struct SettingSpec: Sendable {
    /// What a reload (SIGHUP) does with a changed value.
    public enum Reload: Sendable, Equatable {
        case applies
        /// Kept as started until a restart; a changed value draws its group's warning.
        case atRestart(RestartGroup)
    }

    public let key: SettingKey
    /// The README table's second cell: the default, then in brackets what the key does.
    public let doc: String
    public let reload: Reload
    /// The command-line flag that also sets it (`--interval`), if any.
    public let flag: String?
    /// The default's text, before parsing; systemd's directories may shape it.
    let defaultText: @Sendable (SettingContext) -> String
    /// Parses the key's text into its field.
    let read: @Sendable (inout DaemonSettings, SettingReader) throws(ConfigError) -> Void
    /// A default that depends on other settings (the route through a proxy), applied once all are read.
    let adjust: @Sendable (inout DaemonSettings, SettingReader) -> Void
    /// Why the value cannot stand beside the others, once all are read; nil when it can.
    let check: @Sendable (DaemonSettings, SettingReader) -> String?
    /// Whether two settings differ in this key's field, and how to keep the started one.
    let differs: @Sendable (DaemonSettings, DaemonSettings) -> Bool
    let keep: @Sendable (inout DaemonSettings, DaemonSettings) -> Void

    init<Value: Equatable & Sendable>(_ key: SettingKey, _ field: WritableKeyPath<DaemonSettings, Value> & Sendable,
                           doc: String, reload: Reload = .applies, flag: String? = nil,
                           default defaultText: @escaping @Sendable (SettingContext) -> String,
                           read: @escaping @Sendable (inout DaemonSettings, SettingReader) throws(ConfigError) -> Void,
                           adjust: @escaping @Sendable (inout DaemonSettings, SettingReader) -> Void = { _, _ in },
                           check: @escaping @Sendable (DaemonSettings, SettingReader) -> String? = { _, _ in nil }) {
        self.key = key
        self.doc = doc
        self.reload = reload
        self.flag = flag
        self.defaultText = defaultText
        self.read = read
        self.adjust = adjust
        self.check = check
        differs = { $0[keyPath: field] != $1[keyPath: field] }
        keep = { $0[keyPath: field] = $1[keyPath: field] }
    }

    /// The common case: the text parsed into one field, the parse given the catalog.
    static func value<Value: Equatable & Sendable>(_ key: SettingKey, _ field: WritableKeyPath<DaemonSettings, Value> & Sendable,
                                        default defaultText: String, doc: String, reload: Reload = .applies, flag: String? = nil,
                                        check: @escaping @Sendable (DaemonSettings, SettingReader) -> String? = { _, _ in nil },
                                        _ parse: @escaping @Sendable (String, SettingContext) -> Result<Value, InvalidValue>) -> SettingSpec {
        SettingSpec(key, field, doc: doc, reload: reload, flag: flag, default: { _ in defaultText },
                    read: { settings, reader throws(ConfigError) in
                        settings[keyPath: field] = try reader.value(key) { parse($0, reader.context) }
                    }, check: check)
    }

    /// A duration above zero (or zero, where it means "every time"), at most `limit`.
    static func duration(_ key: SettingKey, _ field: WritableKeyPath<DaemonSettings, Duration> & Sendable,
                         default defaultText: String, atMost limit: Duration, allowZero: Bool = false, doc: String,
                         reload: Reload = .applies, flag: String? = nil,
                         throughProxy: Duration? = nil) -> SettingSpec {
        SettingSpec(key, field, doc: doc, reload: reload, flag: flag, default: { _ in defaultText },
                    read: { settings, reader throws(ConfigError) in
                        settings[keyPath: field] = try reader.duration(key, allowZero: allowZero, atMost: limit)
                    },
                    adjust: { settings, reader in
                        // Through a proxy, the default a direct link assumes gives way to the route's.
                        if let throughProxy, settings.asksThroughProxy, !reader.given(key) { settings[keyPath: field] = throughProxy }
                    })
    }

    /// A list-valued key: items split at commas or blanks, each parsed by `item`; empty is none.
    static func list(_ key: SettingKey, _ field: WritableKeyPath<DaemonSettings, [String]> & Sendable,
                     doc: String, reload: Reload = .applies,
                     item: @escaping @Sendable (String) -> Result<String, InvalidValue>) -> SettingSpec {
        value(key, field, default: "", doc: doc, reload: reload) { text, _ in ListValue.parse(text, item: item) }
    }
}

/// What a default or a parse may depend on besides the key's own text.
public struct SettingContext: Sendable {
    public let catalog: [Venue]
    /// The process environment: systemd's directories, the curl proxy variables.
    public let environment: [String: String]
}

/// The settings a reload keeps until a restart, in groups that share one warning.
public enum RestartGroup: Sendable, Equatable, CaseIterable {
    /// The served quote, the history and the saved state are in it.
    case currency
    case stream
    case files
    case listeners

    /// The warning for a reload that would change the group's `changed` keys.
    func warning(changed: [SettingKey], started: DaemonSettings, next: DaemonSettings) -> String {
        let names = ListValue.prose(changed.map(\.rawValue))
        switch self {
        case .currency:
            return "\(names) changes (\(started.currency) to \(next.currency)) take effect at the next restart"
        case .stream:
            let atRestart = next.stream.problem(currency: next.currency.code, catalog: next.catalog)
                .map { "; at the next restart it would stop the daemon: \($0)" } ?? ""
            return "\(names) changes take effect at the next restart\(atRestart)"
        case .files, .listeners:
            return "\(names) changes take effect at the next restart"
        }
    }
}

/// The one grammar of list-valued keys.
enum ListValue {
    /// `a, b c`: items at commas or blanks, lower case; each must pass `item`.
    static func parse(_ text: String, item: (String) -> Result<String, InvalidValue>) -> Result<[String], InvalidValue> {
        var items: [String] = []
        for word in text.split(whereSeparator: { $0 == "," || $0 == " " }).map({ $0.lowercased() }) {
            switch item(word) {
            case .success(let parsed): items.append(parsed)
            case .failure(let reason): return .failure(reason)
            }
        }
        return .success(items)
    }

    /// `A`, `A and B`, `A, B and C`.
    static func prose(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }
}
