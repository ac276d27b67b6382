#if canImport(Glibc)
import Glibc
#endif

/// A program `btcctl alert` runs: its words, split as a shell would split quoted words but with
/// no shell (no expansion, no redirection); a user who wants one writes `sh -c '…'`.
public struct ChildCommand: Equatable, Sendable {
    public let words: [String]

    public init(words: [String]) { self.words = words }

    /// `notify-send 'BTC moved'`, `"/opt/my tool" --flag`: single and double quotes and
    /// backslashes as in sh; unbalanced quotes and empty commands are errors.
    public init(parsing text: String) throws(CtlUsageError) {
        var words: [String] = [], word = "", inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                word.append(character); escaped = false; continue
            }
            switch (quote, character) {
            case (nil, "\\"), ("\"", "\\"): escaped = true; inWord = true
            case (nil, "'"), (nil, "\""): quote = character; inWord = true
            case ("'", "'"), ("\"", "\""): quote = nil
            case (nil, _) where character == " " || character == "\t" || character == "\n":
                if inWord { words.append(word) }
                word = ""; inWord = false
            default: word.append(character); inWord = true
            }
        }
        guard quote == nil, !escaped else {
            throw CtlUsageError(message: "--exec: unbalanced quote or trailing backslash in \"\(text.prefix(80))\"")
        }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw CtlUsageError(message: "--exec needs a command, e.g. --exec 'notify-send BTC'") }
        self.words = words
    }

    /// Starts the program with `extra` (`NAME=value`) added to btcctl's own environment, found
    /// on PATH like execvp; does not wait. The error says what failed.
    func spawn(adding extra: [String]) -> Result<pid_t, SpawnError> {
        var environment: [String] = []
        var entry = environ
        let replaced = extra.map { String($0.prefix { $0 != "=" }) + "=" }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !replaced.contains(where: { text.hasPrefix($0) }) { environment.append(text) }
            entry += 1
        }
        environment += extra
        var pid: pid_t = 0
        let cArguments = words.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        let code = posix_spawnp(&pid, words[0], nil, nil, cArguments, cEnvironment)
        guard code == 0 else { return .failure(SpawnError(message: "cannot run \(words[0]): \(String(cString: strerror(code)))")) }
        return .success(pid)
    }

    struct SpawnError: Error { let message: String }

    /// Collects children that have ended, without waiting: each pid with how it ended, in
    /// words, or nil when it exited 0.
    static func reapEnded() -> [(pid: pid_t, failure: String?)] {
        var ended: [(pid: pid_t, failure: String?)] = []
        var status: Int32 = 0
        while case let pid = waitpid(-1, &status, WNOHANG), pid > 0 {
            let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
            ended.append((pid, exited ? (code == 0 ? nil : "exited with status \(code)") : "was killed by signal \(status & 0x7F)"))
        }
        return ended
    }
}
