import Foundation
import Testing

/// scripts/check-imports fails on a dependency against the layers, and names it.
@Suite("The layer check")
struct LayerCheckTests {
    static let script = DocumentationTests.repository + "/scripts/check-imports"

    func target(_ name: String, _ path: String, _ dependencies: [(kind: String, name: String)] = []) -> [String: Any] {
        ["name": name, "path": path, "type": "regular",
         "dependencies": dependencies.map { [$0.kind: $0.kind == "product" ? [$0.name, "some-package", NSNull(), NSNull()] : [$0.name, NSNull()]] }]
    }

    func check(_ targets: [[String: Any]]) async throws -> CommandResult {
        let file = NSTemporaryDirectory() + "btcpriced-layers-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try JSONSerialization.data(withJSONObject: ["targets": targets]).write(to: URL(fileURLWithPath: file))
        return try await runCommand("/usr/bin/env", ["python3", Self.script, "--layers-only", "--package-json", file], timeout: .seconds(30))
    }

    @Test func aDependencyAgainstTheLayersFailsTheCheck() async throws {
        let shared = target("JSONText", "Sources/Shared/JSONText")
        let result = try await check([
            shared,
            target("PriceCore", "Sources/Core/PriceCore", [("byName", "JSONText"), ("product", "NIOCore")]),
            target("FileStore", "Sources/Adapters/FileStore", [("byName", "PriceCore")]),
            target("Exchanges", "Sources/Adapters/Exchanges", [("byName", "DaemonKit")]),
            target("DaemonKit", "Sources/Apps/DaemonKit", [("byName", "PriceCore"), ("byName", "FileStore"), ("product", "AsyncHTTPClient")]),
            target("ClientKit", "Sources/Apps/ClientKit", [("byName", "JSONText"), ("byName", "PriceCore")]),
        ])
        #expect(result.status == 1, "exit \(result.status): \(result.stdout) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for expected in ["PriceCore (core) depends on NIOCore (external): the core depends on Shared alone",
                         "Exchanges (adapter) depends on DaemonKit (app): adapters depend on no app",
                         "DaemonKit (app) depends on FileStore (adapter): DaemonKit depends on no adapter",
                         "DaemonKit (app) depends on AsyncHTTPClient (external): DaemonKit depends on no adapter",
                         "ClientKit (app) depends on PriceCore (core): btcctl depends on Shared alone"] {
            #expect(lines.contains { $0.contains(expected) }, "no line with \"\(expected)\" in:\n\(result.stdout)")
        }
        #expect(lines.last == "imports: 5 undeclared or against the layers", "\(result.stdout)")
    }

    @Test func anAdapterOnAnotherAdapterFailsUnlessItsEdgeIsListed() async throws {
        let result = try await check([
            target("JSONText", "Sources/Shared/JSONText"),
            target("PriceCore", "Sources/Core/PriceCore", [("byName", "JSONText")]),
            target("Exchanges", "Sources/Adapters/Exchanges", [("byName", "PriceCore")]),
            target("FileStore", "Sources/Adapters/FileStore", [("byName", "PriceCore"), ("byName", "Exchanges")]),
            target("ExchangeHTTP", "Sources/Adapters/ExchangeHTTP", [("byName", "PriceCore"), ("byName", "Exchanges")]),
        ])
        #expect(result.status == 1, "exit \(result.status): \(result.stdout) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("FileStore (adapter) depends on Exchanges (adapter): adapters depend on no other adapter") },
                "the unlisted edge is named: \(result.stdout)")
        #expect(!lines.contains { $0.contains("ExchangeHTTP (adapter)") }, "the listed edge passes: \(result.stdout)")
        #expect(lines.last == "imports: 1 undeclared or against the layers", "\(result.stdout)")
    }

    @Test func dependenciesThatPointInwardPass() async throws {
        let result = try await check([
            target("JSONText", "Sources/Shared/JSONText"),
            target("PriceCore", "Sources/Core/PriceCore", [("byName", "JSONText")]),
            target("FileStore", "Sources/Adapters/FileStore", [("byName", "PriceCore")]),
            target("DaemonKit", "Sources/Apps/DaemonKit", [("byName", "PriceCore"), ("product", "Logging")]),
            target("Daemon", "Sources/Apps/Daemon", [("byName", "DaemonKit"), ("byName", "FileStore"), ("product", "NIOCore")]),
            target("ClientKit", "Sources/Apps/ClientKit", [("byName", "JSONText")]),
        ])
        #expect(result.status == 0 && result.stdout == "imports: 0 undeclared or against the layers\n", "exit \(result.status): \(result.stdout)")
    }
}
