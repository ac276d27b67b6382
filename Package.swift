// swift-tools-version: 6.1
import PackageDescription

// Linux only (systemd, Glibc, SO_MEMINFO); no other platform is claimed.
// The layout mirrors the architecture: Core (pure) <- Adapters (IO) <- Apps (composition roots).
// btcctl and WireProtocol depend on nothing beyond the standard library and Glibc, so the
// client starts as fast as a C program.
let package = Package(
    name: "btcpriced",
    products: [
        .executable(name: "btcpriced", targets: ["btcpriced"]),
        .executable(name: "btcctl", targets: ["btcctl"]),
        .executable(name: "fake-exchange", targets: ["fake-exchange"]),
        .executable(name: "persist-bench", targets: ["persist-bench"]),
        .executable(name: "watch-bench", targets: ["watch-bench"]),
        .executable(name: "loop-floor", targets: ["loop-floor"]),
        .executable(name: "http-floor", targets: ["http-floor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: []),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // NIOSOCKS and NIOExtras' HTTP CONNECT handler, for streams through a proxy (AsyncHTTPClient
        // already builds both for its own proxies).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // Core: domain types, ports and use cases. No IO; clocks are injected.
        // JSONText for its decimal-literal scanner: one grammar for every price text.
        .target(name: "PriceCore", dependencies: ["JSONText", "CivilTime", "WireProtocol"], path: "Sources/Core/PriceCore"),

        // Shared, Foundation-free building blocks.
        .target(name: "JSONText", path: "Sources/Shared/JSONText"),
        .target(name: "WireProtocol", dependencies: ["JSONText"], path: "Sources/Shared/WireProtocol"),
        .target(name: "PosixFiles", path: "Sources/Shared/PosixFiles"),
        .target(name: "CivilTime", path: "Sources/Shared/CivilTime"),

        // Adapters: each one implements a port of the core against the outside world.
        // The venue catalog and each venue's pure parsers: no IO, so the config can use the
        // catalog without waiting for the HTTP stack to build.
        .target(name: "Exchanges", dependencies: ["PriceCore", "JSONText", "WireProtocol"], path: "Sources/Adapters/Exchanges"),
        // Each venue's REST source over AsyncHTTPClient.
        .target(
            name: "ExchangeHTTP",
            dependencies: [
                "Exchanges", "PriceCore",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/ExchangeHTTP"
        ),
        .target(
            name: "EventLoopScheduling",
            dependencies: ["PriceCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Sources/Adapters/EventLoopScheduling"
        ),
        .target(
            name: "Streams",
            dependencies: [
                "PriceCore", "Exchanges", "EventLoopScheduling", "PosixFiles", "WireProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            path: "Sources/Adapters/Streams"
        ),
        // A Tor circuit per venue: loopback relays that give each venue its own SOCKS credentials.
        .target(
            name: "TorCircuits",
            dependencies: [
                "PriceCore", "Exchanges",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Adapters/TorCircuits"
        ),
        .target(name: "FileStore", dependencies: ["PriceCore", "JSONText", "PosixFiles"], path: "Sources/Adapters/FileStore"),
        // What both listeners share: the watch fan-out, the per-UID budget and its seat, the limits.
        .target(
            name: "ListenerKit",
            dependencies: [
                "PosixFiles", "PriceCore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/ListenerKit"
        ),
        .target(
            name: "SocketServer",
            dependencies: [
                "PriceCore", "WireProtocol", "PosixFiles", "CLinux", "ListenerKit",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/SocketServer"
        ),
        // The HTTP listener: the API, the event stream, the compatible routes and the dashboard,
        // on NIO's HTTP/1.1 codec; the same replies, shares and watch rules as the socket.
        .target(
            name: "HTTPAPI",
            dependencies: [
                "PriceCore", "WireProtocol", "JSONText", "ListenerKit",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/HTTPAPI"
        ),
        // MQTT 3.1.1 publishing for Home Assistant: the few packets a QoS 0 publisher needs, over NIO.
        .target(
            name: "MQTTPublish",
            dependencies: [
                "PriceCore", "JSONText",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/MQTTPublish"
        ),
        .target(
            name: "DaemonConfig",
            dependencies: [
                "PriceCore", "PosixFiles", "Exchanges", "WireProtocol",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Adapters/DaemonConfig"
        ),

        // epoll, eventfd and accept4 for the socket server's front door.
        .target(name: "CLinux", path: "Sources/Adapters/CLinux"),
        // libsystemd: the C library (system target) and the small Swift wrapper over it.
        .systemLibrary(
            name: "CSystemd",
            path: "Sources/Adapters/CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // Prometheus exposition of what the adapters record through swift-metrics; only the daemon's
        // composition root and this module know Prometheus.
        .target(
            name: "MetricsExport",
            dependencies: [
                "PriceCore", "WireProtocol",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/Adapters/MetricsExport"
        ),
        .target(
            name: "Systemd",
            dependencies: ["CSystemd", "PriceCore", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Adapters/Systemd"
        ),

        // The daemon's logic: the board, the one door, the publisher, the keepers and health.
        // No NIO, no HTTP client, no adapter: what it needs of the outside is a port of the core.
        .target(
            name: "DaemonKit",
            dependencies: [
                "PriceCore", "WireProtocol",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Apps/DaemonKit"
        ),
        // Composition roots. The daemon's wiring lives in a library so tests can run it in-process.
        .target(
            name: "Daemon",
            dependencies: [
                "DaemonKit", "PriceCore", "Exchanges", "ExchangeHTTP", "Streams", "TorCircuits", "FileStore", "SocketServer", "ListenerKit", "DaemonConfig", "WireProtocol", "Systemd", "MetricsExport",
                "EventLoopScheduling", "HTTPAPI", "CLinux", "MQTTPublish",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Apps/Daemon"
        ),
        .executableTarget(name: "btcpriced", dependencies: ["Daemon"], path: "Sources/Apps/btcpriced"),
        .target(name: "ClientKit", dependencies: ["WireProtocol", "JSONText", "CivilTime"], path: "Sources/Apps/ClientKit"),
        .executableTarget(
            name: "btcctl",
            dependencies: ["ClientKit"],
            path: "Sources/Apps/btcctl",
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux]))]
        ),

        // Test support that is also shipped as a tool: a misbehaving exchange on 127.0.0.1.
        .target(
            name: "FakeExchange",
            dependencies: [
                "TestClocks",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/Testing/FakeExchange"
        ),
        .executableTarget(name: "fake-exchange", dependencies: ["FakeExchange"], path: "Sources/Testing/fake-exchange"),
        // Benchmarks (scripts/bench), kept apart from the tests.
        .executableTarget(name: "persist-bench", dependencies: ["FileStore", "PriceCore"], path: "Benchmarks/PersistBench"),
        .executableTarget(
            name: "loop-floor",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/LoopFloor"
        ),
        .executableTarget(
            name: "http-floor",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            path: "Benchmarks/HTTPFloor"
        ),
        .executableTarget(
            name: "watch-bench",
            dependencies: ["SocketServer", "ListenerKit", "PriceCore", "TestClocks", "WireProtocol", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/WatchBench"
        ),

        .target(name: "TestClocks", dependencies: ["PriceCore", .product(name: "Logging", package: "swift-log")], path: "Sources/Testing/TestClocks"),
        // Recording stand-ins for DaemonKit's ports and a board on manual clocks, for tests.
        .target(
            name: "DaemonKitTesting",
            dependencies: ["DaemonKit", "PriceCore", "TestClocks", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Testing/DaemonKitTesting"
        ),

        .testTarget(name: "PriceCoreTests", dependencies: ["PriceCore", "TestClocks"]),
        .testTarget(name: "SharedTests", dependencies: ["JSONText", "WireProtocol", "ClientKit", "CivilTime"]),
        .testTarget(name: "AdapterTests", dependencies: [
            "Exchanges", "ExchangeHTTP", "Streams", "FileStore", "SocketServer", "DaemonConfig", "FakeExchange", "PriceCore", "WireProtocol", "TestClocks", "ClientKit", "Systemd",
            "MetricsExport", "EventLoopScheduling", "HTTPAPI", "JSONText", "TorCircuits", "ListenerKit", "MQTTPublish",
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["Fixtures"]),
        // DaemonKit through its public API only: no @testable, no sockets, no wall time.
        .testTarget(name: "DaemonKitTests", dependencies: [
            "DaemonKit", "DaemonKitTesting", "PriceCore", "WireProtocol", "TestClocks",
            .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "DaemonTests", dependencies: [
            "Daemon", "DaemonKit", "DaemonKitTesting", "PriceCore", "DaemonConfig", "Exchanges", "WireProtocol", "FileStore", "SocketServer", "Systemd", "TestClocks", "MetricsExport",
            "Streams", "FakeExchange", "ClientKit",
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["FakeExchange", "WireProtocol", "JSONText", "ClientKit"], exclude: ["Clients"]),
    ],
    swiftLanguageModes: [.v6]
)
