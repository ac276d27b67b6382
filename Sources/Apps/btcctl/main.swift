#if canImport(Glibc)
import Glibc
#endif
import ClientKit

var arguments = CommandLine.arguments
arguments.removeFirst()
exit(CtlMain.run(arguments: arguments,
                 socketFromEnvironment: getenv("BTCCTL_SOCKET").map { String(cString: $0) },
                 currencyFromEnvironment: getenv("BTCCTL_CURRENCY").map { String(cString: $0) },
                 runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }))
