import DaemonConfig
import Foundation
import Testing

/// Every setting the daemon reads, taken from the code itself (the general keys and each
/// catalog venue's), is documented where an operator looks: so the docs cannot drift.
@Suite("Configuration keys and their documentation agree")
struct ConfigDocumentationTests {
    func read(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The keys a document names, in the order it names them.
    func keys(in text: Substring, after prefix: String, until suffix: String) -> [String] {
        var keys: [String] = [], rest = text
        while let start = rest.range(of: prefix + "BTCPRICED_") {
            let name = rest[start.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if rest[start.upperBound...].dropFirst(name.count).hasPrefix(suffix) { keys.append("BTCPRICED_" + name) }
            rest = rest[start.upperBound...]
        }
        return keys
    }

    /// The README's table has one row per key of the setting table, and no other, each starting
    /// with the entry's own line.
    @Test func theReadmeTableIsTheSettingTable() throws {
        let readme = try read("README.md")
        let table = try #require(readme.range(of: "| key | default |\n|---|---|\n"), "the README's key table")
        let rows = readme[table.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("|") }
        let specs = SettingTable.standard.specs
        #expect(SettingTable.standard.specs.count > 40, "\(specs.count) keys")
        expectSame(rows.flatMap { keys(in: $0, after: "| `", until: "` |") }, specs.map(\.key.rawValue), in: "the README's table")
        for spec in specs {
            let row = rows.first { $0.hasPrefix("| `\(spec.key)` |") }
            #expect(row?.hasPrefix("| `\(spec.key)` | \(spec.doc)") == true, "README: \(row ?? "no row"); the table says: \(spec.doc)")
        }
    }

    /// btcpriced.conf(5) heads one entry per key with its default, and the shipped file lists
    /// every key commented out: no more, no fewer.
    @Test func theManualAndTheShippedFileListTheSettingTable() throws {
        let page = try read("docs/man/btcpriced.conf.5.scd"), file = try read("config/btcpriced.conf")
        let table = SettingTable.standard, names = table.specs.map(\.key.rawValue)
        expectSame(keys(in: page[...], after: "*", until: "*="), names, in: "btcpriced.conf(5)")
        expectSame(keys(in: file[...], after: "\n#", until: "="), names, in: "config/btcpriced.conf")
        for spec in table.specs {
            let fallback = table.defaultText(spec.key) ?? ""
            let heading = fallback.isEmpty ? "*\(spec.key)*=" : "*\(spec.key)*=_\(fallback)_"
            #expect(page.contains(heading), "btcpriced.conf(5) lacks \(heading)")
            #expect(page.contains("*\(spec.key)*=_") == !fallback.isEmpty, "btcpriced.conf(5) gives \(spec.key) a default the table has not: \(quote(fallback))")
            if !fallback.isEmpty {
                #expect(spec.doc.contains("`\(fallback)`"), "\(spec.key)'s line \(quote(spec.doc)) lacks its default `\(fallback)`")
            }
        }
    }

    /// A setting with a flag is in `--help` and btcpriced(8); the parser takes each.
    @Test func everySettingFlagIsInTheHelpAndTheManual() throws {
        let page = try read("docs/man/btcpriced.8.scd")
        let flags = SettingTable.standard.specs.compactMap { spec in spec.flag.map { ($0, spec.key) } }
        #expect(flags.count >= 4, "\(flags)")
        for (flag, key) in flags {
            #expect(DaemonCommandLine.usage.contains("--\(flag) "), "--help lacks --\(flag)")
            #expect(page.contains("*--\(flag)*"), "btcpriced(8) lacks --\(flag)")
            #expect(try DaemonCommandLine.parse(["--\(flag)", "x"]) == .run(DaemonOptions(flags: [key: "x"])), "--\(flag)")
        }
    }

    /// Both name the same keys; a failure lists what each lacks.
    func expectSame(_ documented: [String], _ table: [String], in document: String) {
        let missing = Set(table).subtracting(documented).sorted(), extra = Set(documented).subtracting(table).sorted()
        #expect(missing.isEmpty && extra.isEmpty, "\(document) lacks \(missing) and names \(extra), which the setting table has not")
    }

    func quote(_ text: String) -> String { "\"\(text)\"" }

    /// The budget line is about venues the chain names: a mempool-only chain has none.
    @Test func checkConfigNamesOnlyTheChainsBudgets() {
        let mempool = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-docs-check"]),
                                      environment: ["BTCPRICED_SOURCES": "mempool"])
        #expect(!mempool.lines.joined(separator: "\n").contains("budget"), "\(mempool.lines)")
        let standard = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-docs-check"]), environment: [:])
        #expect(standard.lines.joined(separator: "\n").contains("cryptocompare budget: 7500 calls a day"), "\(standard.lines)")
    }
}
