#if canImport(Glibc)
import Glibc
#endif
import Daemon

// At default priority: the main task's user-initiated priority makes libdispatch renice its
// worker to -4, which an unprivileged service may not, and it says so in the journal.
let status = await Task(priority: .medium) {
    await DaemonMain.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: currentEnvironment())
}.value
exit(status)

func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let pair = String(cString: entry)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
