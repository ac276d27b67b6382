import Exchanges

/// The settings that are not a venue's own, in the order the loader reads them (an entry may
/// lean on one above it: the timeout on the interval, a URL on the plain-HTTP hosts) and the
/// README's table lists them.
extension SettingSpec {
    static let general: [SettingSpec] = chain + timing + limits + routes + stream + choosing + files + listeners + mqtt

    private static let chain: [SettingSpec] = [
        SettingSpec(.sources, \.sources, doc: "`binance,coinbase,kraken,bitstamp,cryptocompare`",
                    default: { $0.catalog.filter(\.inDefaultChain).map(\.name.rawValue).joined(separator: ",") },
                    read: { settings, reader throws(ConfigError) in
                        settings.sources = try reader.value(.sources) { ValueParsers.sources($0, catalog: reader.context.catalog) }
                    }),
        .value(.currency, \.currency, default: "USD", doc: "`USD` (an ISO 4217 code; see docs/GUIDE.md)",
               reload: .atRestart(.currency)) { text, _ in ValueParsers.currency(text) },
        SettingSpec(.currencies, \.currencies, doc: "unset (several codes, `USD,EUR,JPY`: one daemon serves each; the first is the primary)",
                    reload: .atRestart(.currency), default: { _ in "" },
                    read: { settings, reader throws(ConfigError) in
                        let codes = try reader.value(.currencies, ValueParsers.currencies)
                        guard let primary = codes.first else { return }
                        if reader.given(.currency) {
                            throw ConfigError("\(reader.origin(of: .currency)) and \(reader.origin(of: .currencies)) are both set: BTCPRICED_CURRENCY is the one-currency form of BTCPRICED_CURRENCIES (whose first code is the primary currency); remove one")
                        }
                        settings.currencies = codes
                        settings.currency = primary
                    }),
    ]

    private static let timing: [SettingSpec] = [
        .duration(.interval, \.interval, default: "1s", atMost: .seconds(3600), doc: "`1s`", flag: "interval",
                  throughProxy: DaemonSettings.ThroughProxy.interval),
        SettingSpec(.timeout, \.timeout, doc: "`800ms`, or 80 % of a shorter interval; `10s` through a proxy",
                    default: { _ in DaemonSettings.defaultTimeout(interval: nil).humanReadable },
                    read: { settings, reader throws(ConfigError) in
                        // Unset, the timeout follows the interval; set, it must fit inside it (the check).
                        settings.timeout = reader.given(.timeout) ? try reader.duration(.timeout, atMost: .seconds(60))
                            : DaemonSettings.defaultTimeout(interval: settings.interval)
                        settings.timeoutThroughProxy = settings.timeout
                    },
                    adjust: { settings, reader in
                        guard settings.asksThroughProxy, !reader.given(.timeout) else { return }
                        settings.timeout = DaemonSettings.defaultTimeout(interval: settings.interval)
                        settings.timeoutThroughProxy = DaemonSettings.defaultTimeout(interval: settings.interval, throughProxy: true)
                    },
                    check: { settings, reader in
                        // Every attempt must end before the next cycle is due, or the interval is not kept.
                        settings.timeout < settings.interval && settings.timeoutThroughProxy < settings.interval ? nil
                            : "\(reader.origin(of: .timeout)) (\(settings.timeout.humanReadable)) must be shorter than \(reader.origin(of: .interval)) (\(settings.interval.humanReadable)): a slow source would overrun every cycle. Lower BTCPRICED_TIMEOUT or raise BTCPRICED_INTERVAL"
                    }),
        SettingSpec(.connectTimeout, \.connectTimeout, doc: "unset: `30s` through a proxy, within the timeout direct",
                    default: { _ in "" },
                    read: { settings, reader throws(ConfigError) in
                        settings.connectTimeout = reader.given(.connectTimeout) ? try reader.duration(.connectTimeout, atMost: .seconds(300)) : nil
                        settings.connectTimeoutThroughProxy = settings.connectTimeout ?? DaemonSettings.ThroughProxy.connectTimeout
                    }),
        .duration(.staleAfter, \.staleAfter, default: "10s", atMost: .seconds(86_400),
                  doc: "`10s`; `60s` through a proxy (and `BTCPRICED_INTERVAL` `15s`)", throughProxy: DaemonSettings.ThroughProxy.staleAfter),
        .duration(.persistInterval, \.persistInterval, default: "2m", atMost: .seconds(86_400), allowZero: true,
                  doc: "`2m` (and always at a clean stop; `0` writes every quote)"),
        .duration(.watchStall, \.watchStall, default: "30s", atMost: .seconds(3600),
                  doc: "`30s` (a `watch` client that has not read for this long is dropped)"),
    ]

    private static let limits: [SettingSpec] = [
        .value(.userConnections, \.userConnections, default: "128", doc: "`128` (socket connections one local user may hold)") { text, _ in
            ValueParsers.wholeNumber(in: 2...65_536)(text)
        },
        .value(.userWatchers, \.userWatchers, default: "64", doc: "`64` (of those, `watch` streams; fewer than the above)",
               check: { settings, reader in
                   // A user's own prompts must find room beside its watchers.
                   settings.userWatchers < settings.userConnections ? nil
                       : "\(reader.origin(of: .userWatchers)) (\(settings.userWatchers)) must be lower than \(reader.origin(of: .userConnections)) (\(settings.userConnections)), so a user's own one-shot requests find room beside its watch streams"
               }) { text, _ in ValueParsers.wholeNumber(in: 0...65_535)(text) },
    ]

    private static let routes: [SettingSpec] = [
        SettingSpec(.proxy, \.proxies, doc: "unset (`https_proxy`, `ALL_PROXY` and `NO_PROXY` apply as curl reads them)",
                    default: { _ in "" },
                    read: { settings, reader throws(ConfigError) in
                        let explicit = try reader.value(.proxy) { .success($0) }
                        switch ProxyRules.load(explicit: explicit, environment: reader.context.environment) {
                        case .success(let rules): settings.proxies = rules
                        case .failure(let error) where explicit.trimmingBlanks.isEmpty: throw ConfigError("environment variable \(error.reason)")
                        case .failure(let error): throw ConfigError("\(reader.origin(of: .proxy)): \(error.reason)")
                        }
                    },
                    check: OnionRoute.problem),
        .list(.plainHTTPHosts, \.plainHTTPHosts, doc: "unset (LAN hosts a venue URL may reach over plain `http://`)",
              item: ValueParsers.plainHost),
    ]

    private static let stream: [SettingSpec] = [
        SettingSpec(.stream, \.stream, doc: "`auto` (stream trades from the first of binance, coinbase, kraken in the chain; `off` to poll only)",
                    reload: .atRestart(.stream), default: { _ in "auto" },
                    read: { settings, reader throws(ConfigError) in
                        let catalog = reader.context.catalog
                        settings.stream = try reader.value(.stream) { text in
                            StreamChoice(text, catalog: catalog).map { .success($0) }
                                ?? .failure("unknown stream \(quoted(text)); use one of \(StreamChoice.choices(in: catalog).joined(separator: ", "))")
                        }
                    }),
        .duration(.publishInterval, \.publishInterval, default: "250ms", atMost: .seconds(60), allowZero: true,
                  doc: "`250ms` (at most one `watch` line per interval; `0` = every update)", reload: .atRestart(.stream)),
    ]

    private static let choosing: [SettingSpec] = [
        .value(.mode, \.mode, default: "fallback", doc: "`fallback` (or `consensus`)") { text, _ in ValueParsers.mode(text) },
        .value(.maximumDeviation, \.maximumDeviation, default: "1%", doc: "`1%`") { text, _ in ValueParsers.percentage(text) },
        .value(.consensusMinimum, \.consensusMinimum, default: "2", doc: "`2`") { text, context in
            ValueParsers.wholeNumber(in: 1...context.catalog.count)(text)
        },
        .value(.consensusUSDT, \.consensusIncludesUSDT, default: "no", doc: "`no`") { text, _ in ValueParsers.yesNo(text) },
        .value(.backfill, \.backfill, default: "on", doc: "`on` (fill the last week's missing minutes from venue candles at start; `off`)") { text, _ in
            ValueParsers.onOff(text)
        },
        .value(.confirmMove, \.confirmMove, default: "5%",
               doc: "`5%` (a larger move from a quote under a minute old waits for a second venue; `off`)") { text, _ in
            ValueParsers.percentageOrOff(text)
        },
    ]

    private static let files: [SettingSpec] = [
        SettingSpec(.stateDirectory, \.stateDirectory, doc: "`$STATE_DIRECTORY`, else `/var/lib/btcpriced`", reload: .atRestart(.files),
                    flag: "state-dir", default: { DaemonSettings.firstDirectory($0.environment["STATE_DIRECTORY"]) ?? "/var/lib/btcpriced" },
                    read: { settings, reader throws(ConfigError) in settings.stateDirectory = try reader.value(.stateDirectory, ValueParsers.nonEmpty) }),
        // The units name it as their second StateDirectory=, shared by every instance.
        SettingSpec(.limitsDirectory, \.limitsDirectory,
                    doc: "the second `$STATE_DIRECTORY` entry (`/var/lib/btcpriced-limits` under the units), else none",
                    default: { DaemonSettings.directories($0.environment["STATE_DIRECTORY"]).dropFirst().first ?? "" },
                    read: { settings, reader throws(ConfigError) in
                        settings.limitsDirectory = try reader.value(.limitsDirectory, ValueParsers.optionalDirectory)
                    }),
        SettingSpec(.socket, \.socketPath, doc: "`$RUNTIME_DIRECTORY/btcpriced.sock`, else `/run/btcpriced/btcpriced.sock`",
                    reload: .atRestart(.files), flag: "socket",
                    default: { DaemonSettings.firstDirectory($0.environment["RUNTIME_DIRECTORY"]).map { $0 + "/btcpriced.sock" } ?? "/run/btcpriced/btcpriced.sock" },
                    read: { settings, reader throws(ConfigError) in settings.socketPath = try reader.value(.socket, ValueParsers.nonEmpty) }),
        .value(.logLevel, \.logLevel, default: "info", doc: "`info`", flag: "log-level") { text, _ in
            LogLevel(rawValue: text.lowercased()).map { .success($0) }
                ?? .failure("unknown log level \(quoted(text)); use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        },
    ]

    private static let listeners: [SettingSpec] = [
        .value(.metricsTextfile, \.metricsTextfile, default: "",
               doc: "unset (a `.prom` file for node_exporter's textfile collector)", reload: .atRestart(.listeners)) { text, _ in
            ValueParsers.optionalAbsolutePath(text)
        },
        .duration(.metricsTextfileInterval, \.metricsTextfileInterval, default: "15s", atMost: .seconds(3600), doc: "`15s`",
                  reload: .atRestart(.listeners)),
        SettingSpec(.httpListen, \.http.address,
                    doc: "unset (e.g. `127.0.0.1:9843` for the HTTP API and the dashboard; see docs/HTTP.md)", reload: .atRestart(.listeners),
                    default: { _ in "" },
                    read: { settings, reader throws(ConfigError) in
                        settings.http.address = try reader.value(.httpListen, ValueParsers.listenAddress)
                    }),
        // The listener's older name; never both, as they would name one listener twice.
        SettingSpec(.metricsListen, \.http.setting, doc: "unset (the older name of `BTCPRICED_HTTP_LISTEN`)", reload: .atRestart(.listeners),
                    default: { _ in "" },
                    read: { settings, reader throws(ConfigError) in
                        guard let address = try reader.value(.metricsListen, ValueParsers.listenAddress) else { return }
                        guard settings.http.address == nil else {
                            throw ConfigError("\(reader.origin(of: .httpListen)) and \(reader.origin(of: .metricsListen)) are both set; they name the same listener (BTCPRICED_METRICS_LISTEN is its older name): keep BTCPRICED_HTTP_LISTEN alone")
                        }
                        (settings.http.address, settings.http.setting) = (address, .metricsListen)
                    }),
        .duration(.serveStaleFor, \.serveStaleFor, default: "10m", atMost: .seconds(7 * 86_400), allowZero: true,
                  doc: "`10m` (how long mempool's and BTCPay's routes still answer a stale quote; `0` never)", reload: .atRestart(.listeners)),
        .list(.httpHosts, \.http.hosts, doc: "unset (host names the listener answers besides loopback and `localhost`)",
              reload: .atRestart(.listeners), item: ValueParsers.hostName),
        .list(.httpOrigins, \.http.origins, doc: "unset (web origins that get CORS headers)", reload: .atRestart(.listeners),
              item: ValueParsers.origin),
    ]

    private static let mqtt: [SettingSpec] = [
        .value(.mqttURL, \.mqtt.broker, default: "",
               doc: "unset (e.g. `mqtt://127.0.0.1:1883`: publish to that broker for Home Assistant; see docs/integrations.md)",
               reload: .atRestart(.listeners)) { text, _ in ValueParsers.mqttBroker(text) },
        .value(.mqttTopic, \.mqtt.topicRoot, default: "btcpriced",
               doc: "`btcpriced` (state under `TOPIC/usd/state`, availability under `TOPIC/usd/availability`)",
               reload: .atRestart(.listeners)) { text, _ in ValueParsers.mqttTopic(text) },
        .value(.mqttDiscoveryPrefix, \.mqtt.discoveryPrefix, default: "homeassistant", doc: "`homeassistant` (Home Assistant's discovery prefix)",
               reload: .atRestart(.listeners)) { text, _ in ValueParsers.mqttTopic(text) },
        .value(.mqttPasswordFile, \.mqtt.passwordFile, default: "",
               doc: "unset (a file with the broker password; else the systemd credential `mqtt-password`)",
               reload: .atRestart(.listeners)) { text, _ in ValueParsers.optionalSecretPath(text) },
    ]
}
