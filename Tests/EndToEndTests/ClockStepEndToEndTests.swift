import FakeExchange
import Foundation
import JSONText
import Testing

/// The real daemon, every default on, under a step of its wall clock (CLOCK_REALTIME alone, as
/// NTP or `date -s` step it; the monotonic clocks go on), made by an LD_PRELOAD shim of a few
/// lines (Clients/clockshift.c). A step either way, while healthy or during an outage, behaves
/// like no step: fetching goes on, an outage turns stale at BTCPRICED_STALE_AFTER and
/// `btcctl price` exits 3.
@Suite("A stepped wall clock, end to end")
struct ClockStepEndToEndTests {
    /// The shim, built once per test run with the C compiler at hand.
    static let shim: String? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/clockshift.c").path
        let output = NSTemporaryDirectory() + "btcpriced-clockshift-\(getpid()).so"
        for compiler in ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang", "/opt/swift/usr/bin/clang"] where FileManager.default.isExecutableFile(atPath: compiler) {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: compiler)
            process.arguments = ["-shared", "-fPIC", "-O2", "-o", output, source, "-ldl"]
            guard (try? process.run()) != nil else { continue }
            process.waitUntilExit()
            if process.terminationStatus == 0 { return output }
        }
        return nil
    }()

    /// A daemon under the shim, its clock shifted by what `shiftFile` holds (milliseconds).
    struct SteppedDaemon {
        let daemon: DaemonProcess
        let shiftFile: String

        init(exchange: FakeExchange, settings: [String: String]) throws {
            let directory = try scratchDirectory()
            shiftFile = directory + "/shift"
            try "0".write(toFile: shiftFile, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(exchangeURL: exchange.baseURL, directory: directory, settings: settings.merging([
                "LD_PRELOAD": ClockStepEndToEndTests.shim ?? "", "CLOCKSHIFT_FILE": shiftFile,
            ]) { $1 })
        }

        func step(byMilliseconds milliseconds: Int64) throws {
            let current = Int64((try? String(contentsOfFile: shiftFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "0") ?? 0
            try String(current + milliseconds).write(toFile: shiftFile, atomically: true, encoding: .utf8)
        }
    }

    func status(_ daemon: DaemonProcess) async throws -> JSONValue {
        try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
    }

    static let hour: Int64 = 3_600_000

    /// Every default on, one venue polled (its stream declines the upgrade), a 3 s staleness
    /// limit; the clock steps by `step` once the quote is fresh and the history filling.
    func healthyThenOutage(stepping step: Int64, duringOutage: Bool) async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100000")
        exchange.setStream(.binance, .hangUpgrade)
        let settings = try DefaultsEndToEndTests.defaults(["BTCPRICED_SOURCES": "binance", "BTCPRICED_STALE_AFTER": "3s"])
        let stepped = try SteppedDaemon(exchange: exchange, settings: settings)
        let daemon = stepped.daemon
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a fresh quote", context: { daemon.log }) { try await status(daemon)["state"] == .string("fresh") }
        if duringOutage {
            exchange.set(.binance, .status(503))
            try stepped.step(byMilliseconds: step)
        } else {
            try stepped.step(byMilliseconds: step)
            // Fetching goes on after the step: the fake is asked again, and a new price is served.
            let asked = exchange.requestCount(.binance)
            exchange.set(.binance, .price("100001"))
            try await until("a request after the step", context: { daemon.log }) { exchange.requestCount(.binance) >= asked + 3 }
            try await until("the new price served after the step", context: { daemon.log }) {
                let now = try await status(daemon)
                return now["price"] == .string("100001") && now["state"] == .string("fresh")
            }
            // The venues' answers show the step at once: the estimate is kept against the monotonic clock.
            let listen = settings["BTCPRICED_HTTP_LISTEN"] ?? ""
            var offset: Double?
            try await until("the clock offset shows the step", context: { "\(String(describing: offset))\n\(daemon.log)" }) {
                let metrics = try await HTTPEndToEndTests.curl(["-s", "http://\(listen)/metrics"]).stdout
                offset = metrics.split(separator: "\n").first { $0.hasPrefix("btcpriced_clock_offset_seconds ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
                return offset.map { abs($0 - Double(step) / 1000) < 5 } ?? false
            }
            exchange.set(.binance, .status(503))
        }
        // The outage turns stale at the limit (3 s and the one-second read lag); the test polls
        // with a generous limit, and the age the daemon reports is on its monotonic clock.
        try await until("the outage turns stale", context: { daemon.log }) { try await status(daemon)["state"] == .string("stale") }
        let stale = try await status(daemon)
        let age = stale["age"]?.numberLiteral.flatMap(Double.init) ?? -1
        #expect(age >= 3, "stale only past the limit: \(stale)")
        #expect(age < Double(abs(step)) / 1000 / 2, "the step is not in the age: \(age) s")
        let price = try await daemon.ctl("price")
        #expect(price.status == 3, "btcctl price exits 3 once stale: \(price.status) \(price.stdout) \(price.stderr)")
        try await until("the journal says it is stale", context: { daemon.log }) { daemon.log.contains("the quote is stale") }
        // The step is named once, with its size.
        try await until("the step is logged", context: { daemon.log }) { daemon.log.contains("the host clock stepped") }
        let mentions = daemon.log.components(separatedBy: "the host clock stepped").count - 1
        #expect(mentions == 1, "one line for one step: \(mentions)\n\(daemon.log)")
        // And it recovers when the venue does.
        exchange.set(.binance, .price("100002"))
        try await until("fresh again", context: { daemon.log }) {
            let now = try await status(daemon)
            return now["price"] == .string("100002") && now["state"] == .string("fresh")
        }
        await exchange.shutdown()
    }

    @Test(.enabled(if: shim != nil, "no C compiler to build the clock shim (apt-get install gcc)"))
    func aStepBackWhileHealthyBehavesLikeNoStep() async throws {
        try await healthyThenOutage(stepping: -Self.hour, duringOutage: false)
    }

    @Test(.enabled(if: shim != nil, "no C compiler to build the clock shim (apt-get install gcc)"))
    func aStepBackDuringAnOutageBehavesLikeNoStep() async throws {
        try await healthyThenOutage(stepping: -Self.hour, duringOutage: true)
    }

    @Test(.enabled(if: shim != nil, "no C compiler to build the clock shim (apt-get install gcc)"))
    func aStepForwardWhileHealthyBehavesLikeNoStep() async throws {
        try await healthyThenOutage(stepping: Self.hour, duringOutage: false)
    }

    @Test(.enabled(if: shim != nil, "no C compiler to build the clock shim (apt-get install gcc)"))
    func aStepForwardDuringAnOutageBehavesLikeNoStep() async throws {
        try await healthyThenOutage(stepping: Self.hour, duringOutage: true)
    }
}
