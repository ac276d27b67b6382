#if canImport(Glibc)
import Glibc
#endif
import Daemon

let status = await DaemonRuntime.run(arguments: Array(CommandLine.arguments.dropFirst()),
                                     environment: currentEnvironment())
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
