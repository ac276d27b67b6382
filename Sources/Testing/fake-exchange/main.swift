#if canImport(Glibc)
import Glibc
#endif
import FakeExchange

// Runs the fake exchange for scripts and the systemd tests: `fake-exchange [PORT]`.
// Prints its base URL, then serves until killed.
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 0
let exchange = try await FakeExchange.start(port: port)
print(exchange.baseURL)
fflush(nil)  // flushes every stream; scripts read the URL through a pipe
while true { try await Task.sleep(for: .seconds(3600)) }
