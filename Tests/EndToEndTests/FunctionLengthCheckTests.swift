import Foundation
import Testing

/// scripts/check-function-length fails on a function over 60 lines, names it, and counts no
/// brace inside a string.
@Suite("The function-length check")
struct FunctionLengthCheckTests {
    static let script = DocumentationTests.repository + "/scripts/check-function-length"

    func check(_ source: String) async throws -> CommandResult {
        let directory = NSTemporaryDirectory() + "btcpriced-lengths-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try source.write(toFile: directory + "/Sample.swift", atomically: true, encoding: .utf8)
        return try await runCommand("/usr/bin/env", ["python3", Self.script, directory], timeout: .seconds(30))
    }

    /// A function of `lines` lines, declaration and closing brace included, with braces in a
    /// string and a multi-line string that must not count.
    func function(lines: Int) -> String {
        let body = (0..<(lines - 7)).map { "        total += \($0)" }.joined(separator: "\n")
        return "struct Sample {\n    public static func sum() -> Int {\n        var total = \"}}{\".count\n        let text = \"\"\"\n    }\n" +
            "        \"\"\"\n" + body + "\n        return total + text.count\n    }\n}\n"
    }

    @Test func sixtyLinesPassAndSixtyOneFail() async throws {
        #expect(function(lines: 61).split(separator: "\n", omittingEmptySubsequences: false).count - 3 == 61)
        let within = try await check(function(lines: 60))
        #expect(within.status == 0, "\(within.stdout)\(within.stderr)")
        let over = try await check(function(lines: 61))
        #expect(over.status == 1 && over.stdout.contains("Sample.swift:2: func sum is 61 lines long"), "\(over.status) \(over.stdout)\(over.stderr)")
    }
}
