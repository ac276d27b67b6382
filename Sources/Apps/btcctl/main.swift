#if canImport(Glibc)
import Glibc
#endif
import ClientKit

exit(CtlMain.run(arguments: Array(CommandLine.arguments.dropFirst()),
                 socketFromEnvironment: getenv("BTCCTL_SOCKET").map { String(cString: $0) }))
