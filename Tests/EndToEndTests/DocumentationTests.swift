import Foundation
import Testing

/// The man pages, the --help texts and the completions must agree on every flag.
@Suite("Man pages, --help and completions agree")
struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func read(_ relative: String) throws -> String {
        try String(contentsOfFile: Self.repository + "/" + relative, encoding: .utf8)
    }

    func flags(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "--[a-z][a-z-]+")  // a constant, valid pattern
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }

    @Test("man page flags = --help flags", arguments: [("btcctl", "docs/man/btcctl.1.scd"), ("btcpriced", "docs/man/btcpriced.8.scd")])
    func manMatchesHelp(program: String, page: String) async throws {
        let help = try await runCommand(Binaries.directory + "/" + program, ["--help"]).stdout
        let man = section("OPTIONS", of: try read(page))
        #expect(flags(in: man) == flags(in: help), "man: \(flags(in: man).sorted()) help: \(flags(in: help).sorted())")
    }

    /// One `# NAME` section of an scdoc page, so examples elsewhere cannot add flags.
    func section(_ name: String, of page: String) -> String {
        guard let start = page.range(of: "\n# \(name)\n") else { return "" }
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n# ")?.lowerBound ?? rest.endIndex)])
    }

    @Test func everyDocumentedBtcctlFlagIsAccepted() async throws {
        for flag in flags(in: section("OPTIONS", of: try read("docs/man/btcctl.1.scd"))) {
            let result = try await runCommand(Binaries.ctl, [flag])
            #expect(!result.stderr.contains("unknown option"), "\(flag) is documented but rejected")
        }
    }

    @Test func everyBtcctlCommandIsDocumentedAndCompleted() async throws {
        let man = try read("docs/man/btcctl.1.scd")
        let help = try await runCommand(Binaries.ctl, ["--help"]).stdout
        let bash = try read("packaging/completions/btcctl.bash"), zsh = try read("packaging/completions/_btcctl")
        let fish = try read("packaging/completions/btcctl.fish")
        for command in ["status", "price", "watch", "ping", "waybar", "i3blocks", "prompt", "chart", "wait", "metrics", "version", "help", "polybar", "convert", "alert"] {
            #expect(man.contains("*\(command)*"), "\(command) missing from btcctl(1)")
            #expect(help.contains("  \(command)"), "\(command) missing from --help")
            for completion in [bash, zsh, fish] { #expect(completion.contains(command)) }
        }
        for flag in flags(in: help) {
            #expect(bash.contains(flag) && zsh.contains(flag), "\(flag) missing from the bash or zsh completion")
            #expect(fish.contains("-l \(flag.dropFirst(2))"), "\(flag) missing from the fish completion")
        }
    }
}
