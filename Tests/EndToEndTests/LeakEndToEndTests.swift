import FakeExchange
import Foundation
import JSONText
import Testing

/// Tor without leaks: through a socks5h proxy the daemon never resolves a venue's name itself
/// and never opens a direct connection. The daemon runs in a network namespace whose only way
/// out is a veth to the proxy; everything else is routed into a trap link whose transmit
/// counter must not move. The venue's name resolves only at the proxy (its own /etc/hosts).
@Suite("No leaks around a socks5h proxy, end to end", .serialized)
struct LeakEndToEndTests {
    static let venueHost = "venue.leaktest"
    static let ip = "/usr/sbin/ip", unshare = "/usr/bin/unshare", getent = "/usr/bin/getent"
    /// Root with the tools, allowed to make a namespace (a container may not be).
    static let canRun: Bool = {
        guard getuid() == 0, [ip, unshare, getent, ProxyEndToEndTests.microsocks].allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) })
        else { return false }
        let probe = ChildProcess()
        probe.executableURL = URL(fileURLWithPath: "/bin/sh")
        let name = "btlprobe\(getpid())"
        probe.arguments = ["-c", "\(ip) netns add \(name) && \(ip) netns del \(name)"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// A namespace with loopback, a veth to the host (the proxy's side), and a default route
    /// into a veth pair of its own that leads nowhere: any packet not for the proxy is counted there.
    final class SealedNetwork: @unchecked Sendable {
        let name: String
        let subnet = Int.random(in: 1...250)
        var proxyAddress: String { "10.213.\(subnet).1" }
        var hostLink: String { "\(name)h" }

        init() async throws {
            name = "btl\(String(UInt32.random(in: 0...0xFFFFFF), radix: 16))"
            let ns = ["-n", name]
            for command in [["netns", "add", name],
                            ["link", "add", hostLink, "type", "veth", "peer", "name", "out", "netns", name],
                            ["addr", "add", proxyAddress + "/30", "dev", hostLink], ["link", "set", hostLink, "up"],
                            ns + ["link", "set", "lo", "up"],
                            ns + ["addr", "add", "10.213.\(subnet).2/30", "dev", "out"], ns + ["link", "set", "out", "up"],
                            ns + ["link", "add", "trap", "type", "veth", "peer", "name", "trapend"]] {
                try await Self.run(LeakEndToEndTests.ip, command)
            }
            // No IPv6 on the trap (its own neighbour discovery would move the counter), then up.
            for link in ["trap", "trapend"] {
                let knob = "/proc/sys/net/ipv6/conf/\(link)/disable_ipv6"
                try await Self.run(LeakEndToEndTests.ip, ["netns", "exec", name, "/bin/sh", "-c", "[ ! -e \(knob) ] || echo 1 > \(knob)"])
                try await Self.run(LeakEndToEndTests.ip, ns + ["link", "set", link, "up"])
            }
            try await Self.run(LeakEndToEndTests.ip, ns + ["route", "add", "default", "dev", "trap"])
        }

        static func run(_ path: String, _ arguments: [String]) async throws {
            let result = try await runCommand(path, arguments)
            guard result.status == 0 else {
                Issue.record("\(path) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
                throw CancellationError()
            }
        }

        /// Packets sent into the trap so far.
        func trappedPackets() async throws -> Int {
            let result = try await runCommand(LeakEndToEndTests.ip, ["-n", name, "-s", "-j", "link", "show", "trap"])
            let json = try JSONValue(parsing: result.stdout)
            return json.firstArrayElement?["stats64"]?["tx"]?["packets"]?.numberLiteral.flatMap { Int($0) } ?? -1
        }

        func remove() async {
            _ = try? await runCommand(LeakEndToEndTests.ip, ["netns", "del", name])
            _ = try? await runCommand(LeakEndToEndTests.ip, ["link", "del", hostLink])
        }
    }

    @Test(.enabled(if: canRun, "needs root allowed to make network namespaces, ip, unshare and microsocks"))
    func aSocks5hProxyIsTheOnlyWayOutAndTheOnlyResolver() async throws {
        let exchange = try await FakeExchange.start()
        let network = try await SealedNetwork()
        // microsocks in the host's network, with a mount namespace whose /etc/hosts alone knows the venue.
        let port = try freePort()
        let proxy = try ProxyEndToEndTests.ProxyProcess(Self.unshare, port: port) { directory in
            try? "127.0.0.1 \(Self.venueHost)\n".write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
            return ["--mount", "/bin/sh", "-c",
                    "mount --bind \(directory)/hosts /etc/hosts && exec \(ProxyEndToEndTests.microsocks) -i \(network.proxyAddress) -p \(port)"]
        }
        defer { proxy.stop() }
        do {
            try await run(exchange: exchange, network: network, proxyPort: port)
        } catch {
            await network.remove()
            throw error
        }
        await network.remove()
        await exchange.shutdown()
    }

    func run(exchange: FakeExchange, network: SealedNetwork, proxyPort: Int) async throws {
        let inside = [Self.ip, "netns", "exec", network.name]
        let local = try await runCommand(inside[0], Array(inside.dropFirst()) + [Self.getent, "hosts", Self.venueHost])
        #expect(local.status != 0, "the namespace resolves \(Self.venueHost) itself: \(local.stdout)")
        let before = try await network.trappedPackets()

        let venue = "http://\(Self.venueHost):\(exchange.port)"
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_SOURCES": "coinbase,kraken", "BTCPRICED_STREAM": "coinbase",
            "BTCPRICED_COINBASE_URL": venue, "BTCPRICED_KRAKEN_URL": venue, "BTCPRICED_COINBASE_STREAM_URL": "ws://\(Self.venueHost):\(exchange.port)/",
            "BTCPRICED_PLAIN_HTTP_HOSTS": Self.venueHost, "BTCPRICED_PROXY": "socks5h://\(network.proxyAddress):\(proxyPort)",
        ], launcher: inside)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        var last = ""
        try await until("a streamed coinbase quote through the proxy", context: { "\(last)\n\(daemon.log)" }) {
            last = (try? await daemon.ctl("status", "--json").stdout) ?? ""
            let status = try? JSONValue(parsing: last)
            return status?["transport"]?.stringValue == "stream" && status?["source"]?.stringValue == "coinbase"
        }
        #expect(exchange.requestCount(.coinbase) >= 1, "REST went through the proxy too")
        #expect(exchange.streamConnectionCount(.coinbase) >= 1)
        let after = try await network.trappedPackets()
        #expect(before >= 0 && after == before, "packets left by another way than the proxy: \(before) before, \(after) after")
        #expect(!daemon.log.contains("DNS"), "\(daemon.log)")
    }
}
