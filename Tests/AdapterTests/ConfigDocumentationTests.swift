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

    @Test func everyConfigKeyIsDocumented() throws {
        let page = try read("docs/man/btcpriced.conf.5.scd"), file = try read("config/btcpriced.conf"), readme = try read("README.md")
        #expect(SettingKey.allCases.count > 40, "\(SettingKey.allCases.count) keys")
        for key in SettingKey.allCases.map(\.rawValue) {
            #expect(page.contains("*\(key)*"), "\(key) missing from btcpriced.conf(5)")
            #expect(file.contains("#\(key)="), "\(key) missing from config/btcpriced.conf")
            #expect(readme.contains("`\(key)`"), "\(key) missing from the README's table")
        }
    }

    /// The budget line is about venues the chain names: a mempool-only chain has none.
    @Test func checkConfigNamesOnlyTheChainsBudgets() {
        let mempool = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-docs-check"]),
                                      environment: ["BTCPRICED_SOURCES": "mempool"])
        #expect(!mempool.lines.joined(separator: "\n").contains("budget"), "\(mempool.lines)")
        let standard = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-docs-check"]), environment: [:])
        #expect(standard.lines.joined(separator: "\n").contains("cryptocompare budget: 7500 calls a day"), "\(standard.lines)")
    }
}
