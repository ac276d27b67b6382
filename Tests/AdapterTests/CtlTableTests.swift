import ClientKit
import Foundation
import Testing

/// btcctl's verb table is the one place a command and its options are written: btcctl(1)'s
/// command headings and the three shells' completions must say what it says, both ways.
@Suite("btcctl's verbs and options agree with its manual and completions")
struct CtlTableTests {
    func read(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    var verbNames: [String] { CtlCommandLine.verbs.map { String($0.name) } }

    /// `status [--json | --unit UNIT]` as scdoc writes it: `*status* [*--json* | *--unit* _UNIT_]`.
    func scdoc(_ synopsis: String) -> String {
        var words = synopsis.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        words[0] = "*\(words[0])*"
        for index in words.indices.dropFirst() {
            let core = words[index].trimmingCharacters(in: CharacterSet(charactersIn: "[]|"))
            guard !core.isEmpty, let range = words[index].range(of: core) else { continue }
            let marked = core.hasPrefix("--") ? "*\(core)*" : core == core.uppercased() ? "_\(core)_" : core
            words[index].replaceSubrange(range, with: marked)
        }
        return words.joined(separator: " ")
    }

    @Test func eachVerbHeadsItsSectionOfTheManualWithItsSynopsis() throws {
        let page = try read("docs/man/btcctl.1.scd")
        let headings = page.split(separator: "\n").filter { line in verbNames.contains { line.hasPrefix("*\($0)*") } }
        #expect(CtlCommandLine.verbs.count >= 17, "\(verbNames)")
        for verb in CtlCommandLine.verbs {
            let expected = scdoc(verb.synopsis)
            #expect(headings.contains { $0 == expected }, "btcctl(1) lacks the heading \(expected); it has \(headings.filter { $0.hasPrefix("*\(verb.name)*") })")
        }
        #expect(headings.count == verbNames.count, "btcctl(1) heads \(headings.count) commands, the table has \(verbNames.count)")
    }

    /// bash: the command list, and per command the options its `case` line offers.
    @Test func bashOffersEachVerbItsOptions() throws {
        let bash = try read("packaging/completions/btcctl.bash")
        let list = try #require(bash.split(separator: "\n").first { $0.contains("local commands=\"") })
        #expect(Set(list.split(separator: "\"")[1].split(separator: " ").map(String.init)) == Set(verbNames), "\(list)")
        for verb in CtlCommandLine.verbs {
            let line = bash.split(separator: "\n").first { line in
                let label = line.trimmingCharacters(in: .whitespaces).prefix { $0 != ")" }
                return label.split(separator: "|").contains(verb.name) && line.contains("options+=")
            }
            let offered = line.map { String($0.split(separator: "\"")[1]).split(separator: " ").map(String.init).filter { $0.hasPrefix("--") } } ?? []
            #expect(Set(offered) == Set(verb.flags), "bash offers \(verb.name) \(offered); the table says \(verb.flags)")
        }
    }

    /// fish: each option is offered after exactly the verbs that take it.
    @Test func fishOffersEachOptionAfterItsVerbs() throws {
        let fish = try read("packaging/completions/btcctl.fish")
        let lines = fish.split(separator: "\n")
        for name in CtlCommandLine.optionNames {
            let line = lines.first { $0.contains(" -l \(name.dropFirst(2)) ") }
            #expect(line != nil, "fish lacks \(name)")
            let users = CtlCommandLine.verbs.filter { $0.flags.contains(name) }.map { String($0.name) }
            guard let line, !users.isEmpty else { continue }
            let after = line.components(separatedBy: "__fish_seen_subcommand_from ").dropFirst().first?.prefix { $0 != "\"" } ?? ""
            #expect(Set(after.split(separator: " ").map(String.init)) == Set(users), "fish offers \(name) after \(after); the table: \(users)")
        }
        for verb in verbNames { #expect(fish.contains(" -a \(verb) "), "fish lacks the command \(verb)") }
    }

    /// zsh: the same commands and options, no more.
    @Test func zshKnowsTheSameCommandsAndOptions() throws {
        let zsh = try read("packaging/completions/_btcctl")
        let ctl = String(zsh[..<(zsh.range(of: "_btcpriced()")?.lowerBound ?? zsh.endIndex)])
        let commands = ctl.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("'"), let colon = trimmed.firstIndex(of: ":"), !trimmed.hasPrefix("'-") else { return nil }
            return String(trimmed[trimmed.index(after: trimmed.startIndex)..<colon])
        }.filter { !$0.contains(" ") && !$0.contains("*") && $0 != "1" }
        #expect(Set(commands) == Set(verbNames), "zsh commands \(commands)")
        let options = ctl.components(separatedBy: "--").dropFirst().map { "--" + $0.prefix { $0.isLetter || $0 == "-" } }.filter { $0.count > 2 }
        let offered = Set(ctl.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "'(- *)", with: "'")
            guard trimmed.hasPrefix("'--") else { return nil }
            return String(trimmed.dropFirst().prefix { $0 != "[" })
        })
        #expect(offered == Set(CtlCommandLine.optionNames), "zsh offers \(offered.sorted()); the table: \(CtlCommandLine.optionNames.sorted())")
        #expect(!options.isEmpty)
    }
}
