import DaemonConfig
import Exchanges
import Foundation
import PriceCore
import Testing
import WireProtocol

@Suite("Configuration: file syntax, precedence, validation")
struct ConfigTests {
    func load(flags: [SettingKey: String] = [:], env: [String: String] = [:], file: String? = nil) throws(ConfigError) -> DaemonSettings {
        try SettingsLoader.load(.init(flags: flags, environment: env, file: file.map { ("/etc/btcpriced/btcpriced.conf", $0) }))
    }

    func error(flags: [SettingKey: String] = [:], env: [String: String] = [:], file: String? = nil) -> String {
        do {
            _ = try load(flags: flags, env: env, file: file)
            return "no error"
        } catch {
            return error.description
        }
    }

    /// Tor's onion services: plain http is fine (Tor authenticates the address and encrypts the
    /// path) but only through a SOCKS proxy; without one the error names the setting to add.
    @Test func anOnionVenueNeedsASOCKSProxy() throws {
        let onion = "http://mempoolhqx4isw62xs7abwphsq7ldayuidyx2v2oethdhhj6mlo2r6ad.onion"
        #expect(error(file: "BTCPRICED_BITSTAMP_URL=\(onion)\n").contains("/etc/btcpriced/btcpriced.conf:1: BTCPRICED_BITSTAMP_URL: "))
        #expect(error(file: "BTCPRICED_BITSTAMP_URL=\(onion)\n").contains("set BTCPRICED_PROXY=socks5h://127.0.0.1:9050"))
        #expect(error(file: "BTCPRICED_BITSTAMP_URL=\(onion)\nBTCPRICED_PROXY=http://proxy.lan:3128\n").contains("reachable only through Tor"),
                "an HTTP proxy is no way to Tor")
        let settings = try load(file: "BTCPRICED_BITSTAMP_URL=\(onion)\nBTCPRICED_PROXY=socks5h://127.0.0.1:9050\n")
        #expect(settings.restURL(.bitstamp) == onion)
        #expect(settings.proxies.route(for: onion).description == "via socks5h://127.0.0.1:9050 (host name resolved by the proxy)")
        #expect(error(file: "BTCPRICED_SOURCES=binance\nBTCPRICED_BITSTAMP_URL=\(onion)\n") == "no error", "only venues in use are checked")
    }

    /// A self-hosted source on the LAN over plain http needs the host named, and only it.
    @Test func plainHTTPToALANHostNeedsItNamed() throws {
        #expect(error(file: "BTCPRICED_KRAKEN_URL=http://umbrel.local:3006\n").contains("uses plain http; only https is allowed"))
        let settings = try load(file: "BTCPRICED_PLAIN_HTTP_HOSTS=umbrel.local\nBTCPRICED_KRAKEN_URL=http://umbrel.local:3006\n")
        #expect(settings.restURL(.kraken) == "http://umbrel.local:3006")
        #expect(error(file: "BTCPRICED_PLAIN_HTTP_HOSTS=umbrel.local\nBTCPRICED_COINBASE_URL=http://evil.example\n").contains("uses plain http"))
        #expect(error(file: "BTCPRICED_PLAIN_HTTP_HOSTS=*.local\n").contains("is not a host name"))
    }

    @Test func aBadProxyNamesWhereItWasSet() {
        #expect(error(file: "BTCPRICED_PROXY=ftp://x:1\n") == "/etc/btcpriced/btcpriced.conf:1: BTCPRICED_PROXY: \"ftp://x:1\": unknown proxy scheme \"ftp\"; use http://, socks5:// or socks5h://")
        #expect(error(env: ["HTTPS_PROXY": "http://bob:hunter2@proxy:99999"]).hasPrefix("environment variable HTTPS_PROXY: "))
        #expect(!error(env: ["HTTPS_PROXY": "http://bob:hunter2@proxy:99999"]).contains("hunter2"))
    }

    @Test func defaultsMatchTheDocumentedTable() throws {
        let settings = try load()
        #expect(settings.sources == ["binance", "coinbase", "kraken", "bitstamp", "cryptocompare"])
        #expect(settings.restURL(.coinbase) == "https://api.coinbase.com")
        #expect(settings.restURL(.kraken) == "https://api.kraken.com")
        #expect(settings.restURL(.bitstamp) == "https://www.bitstamp.net")
        #expect(settings.apiKeys[Venue.cryptocompare.name] == nil)
        #expect(settings.value(Venue.cryptoCompareDailyCalls) == "7500")
        #expect(settings.mode == .fallback)
        #expect(settings.maximumDeviation == Decimal(string: "0.01")!)
        #expect(settings.consensusMinimum == 2)
        #expect(settings.consensusIncludesUSDT == false)
        #expect(settings.confirmMove == Decimal(string: "0.05")!)
        #expect(settings.interval == .seconds(1))
        #expect(settings.timeout == .milliseconds(800))
        #expect(settings.staleAfter == .seconds(10))
        #expect(settings.persistInterval == .seconds(120))
        #expect(settings.watchStall == .seconds(30))
        #expect(settings.restURL(.binance) == "https://api.binance.com")
        #expect(settings.value(Venue.binanceSymbolSetting) == "BTCUSDT")
        #expect(settings.restURL(.cryptocompare) == "https://min-api.cryptocompare.com")
        #expect(settings.stateDirectory == "/var/lib/btcpriced")
        #expect(settings.socketPath == "/run/btcpriced/btcpriced.sock")
        #expect(settings.logLevel == .info)
        #expect(settings.stream == .auto)
        #expect(settings.streamURL(.binance) == "wss://stream.binance.com:9443")
        #expect(settings.streamURL(.coinbase) == "wss://advanced-trade-ws.coinbase.com")
        #expect(settings.streamURL(.kraken) == "wss://ws.kraken.com/v2")
        #expect(settings.publishInterval == .milliseconds(250))
    }

    @Test func theStreamComesFromTheFirstSourceThatCanStreamThenTheNext() throws {
        #expect(try load().stream.venues(among: try load().sources) == [.binance, .coinbase, .kraken])
        let chain = try load(env: ["BTCPRICED_SOURCES": "bitstamp,kraken,coinbase"])
        #expect(chain.stream.venues(among: chain.sources) == [.kraken, .coinbase])
        #expect(try load(env: ["BTCPRICED_STREAM": "off"]).stream.venues(among: chain.sources) == [])
        #expect(try load(env: ["BTCPRICED_STREAM": "Coinbase"]).stream.venues(among: chain.sources) == [.coinbase], "a named venue only")
        #expect(StreamChoice.auto.venues(among: ["bitstamp", "cryptocompare"]) == [], "no venue in the chain can stream")
        for url in ["ws://127.0.0.1:8080/v2", "wss://ws.kraken.com/v2"] {
            #expect(try load(env: ["BTCPRICED_KRAKEN_STREAM_URL": url]).streamURL(.kraken) == url)
        }
        #expect(try load(env: ["BTCPRICED_PUBLISH_INTERVAL": "0"]).publishInterval == .zero)
    }

    @Test func configFilesThatAreNotFilesAreNamedWithoutBlocking() throws {
        let directory = NSTemporaryDirectory() + "btcpriced-config-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try ConfigTextFile.read(directory + "/absent.conf") == nil)
        #expect(throws: ConfigError("cannot read \(directory): it is a directory, not a file")) { try ConfigTextFile.read(directory) }
        #expect(mkfifo(directory + "/fifo", 0o600) == 0)
        #expect(throws: ConfigError("cannot read \(directory)/fifo: it is a FIFO, not a file"), "a FIFO nobody writes to never blocks the start") {
            try ConfigTextFile.read(directory + "/fifo")
        }
        try "BTCPRICED_INTERVAL=2s\n".write(toFile: directory + "/btcpriced.conf", atomically: true, encoding: .utf8)
        #expect(try ConfigTextFile.read(directory + "/btcpriced.conf") == "BTCPRICED_INTERVAL=2s\n")
        #expect(try ConfigTextFile.read("/dev/null") == "", "--config /dev/null reads as empty")
    }

    @Test(.enabled(if: getuid() != 0, "skipped as root: root reads files whatever their mode"))
    func anUnreadableConfigFileSaysWhoMustReadIt() throws {
        let path = NSTemporaryDirectory() + "btcpriced-unreadable-\(UUID().uuidString.prefix(8)).conf"
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(chmod(path, 0) == 0)
        #expect(throws: ConfigError("cannot open \(path): Permission denied (the daemon's user must be able to read it: check its owner and mode, e.g. root:root 0644 for the config file)")) {
            try ConfigTextFile.read(path)
        }
    }

    @Test func systemdDirectoriesBecomeDefaults() throws {
        let settings = try load(env: ["STATE_DIRECTORY": "/var/lib/private/btcpriced", "RUNTIME_DIRECTORY": "/run/x:/run/y"])
        #expect(settings.stateDirectory == "/var/lib/private/btcpriced")
        #expect(settings.socketPath == "/run/x/btcpriced.sock")
    }

    @Test func flagsBeatEnvironmentBeatsFileBeatsDefaults() throws {
        let file = "BTCPRICED_INTERVAL=3s\nBTCPRICED_TIMEOUT=500ms\nBTCPRICED_STALE_AFTER=20s\n"
        let env = ["BTCPRICED_INTERVAL": "2s", "BTCPRICED_TIMEOUT": "400ms"]
        let settings = try load(flags: [.interval: "450ms"], env: env, file: file)
        #expect(settings.interval == .milliseconds(450))
        #expect(settings.timeout == .milliseconds(400))
        #expect(settings.staleAfter == .seconds(20))
        #expect(settings.persistInterval == .seconds(120))
    }

    @Test func fileSyntaxAcceptsCommentsQuotesAndCRLF() throws {
        let file = """
        # comment
        ; another comment

          BTCPRICED_SOURCES = "cryptocompare, binance"\r
        BTCPRICED_BINANCE_URL='http://127.0.0.1:8080/'
        BTCPRICED_LOG_LEVEL=DEBUG
        """
        let settings = try load(file: file)
        #expect(settings.sources == ["cryptocompare", "binance"])
        #expect(settings.restURL(.binance) == "http://127.0.0.1:8080/")
        #expect(settings.logLevel == .debug)
    }

    @Test("durations", arguments: [("250ms", 250), ("1s", 1000), ("2m", 120_000), ("1h", 3_600_000), ("5", 5000), ("1.5", 1500), ("0.25s", 250)])
    func durations(text: String, milliseconds: Int64) throws {
        #expect(try load(env: ["BTCPRICED_INTERVAL": text, "BTCPRICED_TIMEOUT": "100ms"]).interval == .milliseconds(milliseconds))
    }

    @Test("file errors name file:line", arguments: [
        ("BTCPRICED_INTERVAL=1s\nnot a setting\n", "btcpriced.conf:2: expected KEY=value"),
        ("BTCPRICED_INTERVALL=1s\n", "btcpriced.conf:1: unknown setting BTCPRICED_INTERVALL (did you mean BTCPRICED_INTERVAL?)"),
        ("\n\nPATH=/bin\n", "btcpriced.conf:3: PATH is not a btcpriced setting"),
        ("BTCPRICED_SOURCES=binance\nBTCPRICED_SOURCES=cryptocompare\n", "btcpriced.conf:2: BTCPRICED_SOURCES is already set on line 1"),
        ("BTCPRICED_SOCKET=\"/tmp/x\n", "btcpriced.conf:1: the value starts with \" but does not end with it"),
        ("BTC-PRICED=1\n", "btcpriced.conf:1: \"BTC-PRICED\" is not a valid setting name"),
        ("BTCPRICED_INTERVAL=0\n", "btcpriced.conf:1: BTCPRICED_INTERVAL: must be greater than zero"),
        ("BTCPRICED_SOURCES=binance,bybit\n", "btcpriced.conf:1: BTCPRICED_SOURCES: unknown source \"bybit\""),
    ])
    func fileErrors(file: String, expected: String) {
        #expect(error(file: file).contains(expected))
    }

    @Test("bad values are rejected with their origin", arguments: [
        (SettingKey.interval, "0s", "must be greater than zero"),
        (.interval, "fast", "is not a duration"),
        (.interval, "1.0001s", "finer than a millisecond"),
        (.interval, "2h", "longer than the maximum"),
        (.timeout, "-1s", "is not a duration"),
        (.sources, ",", "names no sources"),
        (.sources, "binance,binance", "listed twice"),
        (.restURL(.binance), "http://api.binance.com", "only https is allowed"),
        (.restURL(.binance), "ftp://x", "not an http(s) URL"),
        (.streamURL(.binance)!, "ws://stream.binance.com:9443", "only wss is allowed"),
        (.streamURL(.kraken)!, "https://ws.kraken.com/v2", "not a ws(s) URL"),
        (.stream, "bitstamp", "unknown stream \"bitstamp\"; use one of auto, off, binance, coinbase, kraken"),
        (.publishInterval, "2m", "longer than the maximum of 1m"),
        (.restURL(.binance), "https://", "has no host"),
        (.restURL(.binance), "https://x/?a=1", "without spaces, query or fragment"),
        (.restURL(.cryptocompare), "https://x:99999", "invalid port"),
        (.venue(Venue.binanceSymbolSetting), "btc-usdt", "not a BTC market symbol"),
        (.logLevel, "loud", "unknown log level"),
        (.watchStall, "0", "must be greater than zero"),
        (.watchStall, "2h", "longer than the maximum"),
        (.confirmMove, "5", "\"5\" is not a percentage like 5% (above 0, at most 50%), or off"),
        (.confirmMove, "60%", "or off"),
    ])
    func badValues(key: SettingKey, value: String, expected: String) {
        let message = error(env: [key.rawValue: value])
        #expect(message.contains("environment variable \(key.rawValue)"))
        #expect(message.contains(expected))
    }

    @Test func theConfirmMoveIsAPercentageOrOff() throws {
        #expect(try load(env: ["BTCPRICED_CONFIRM_MOVE": "OFF"]).confirmMove == nil)
        #expect(try load(env: ["BTCPRICED_CONFIRM_MOVE": "2.5%"]).confirmMove == Decimal(string: "0.025")!)
    }

    @Test func theCurrencyIsAnISOCodeAndTyposGetAHint() throws {
        #expect(try load().currency.code == "USD")
        #expect(try load(env: ["BTCPRICED_CURRENCY": "eur"]).currency.code == "EUR")
        #expect(try load(env: ["BTCPRICED_CURRENCY": "JPY"]).currency.minorUnits == 0)
        #expect(try load(env: ["BTCPRICED_CURRENCY": "gbp"]).venueOptions.currency == "GBP")
        #expect(error(env: ["BTCPRICED_CURRENCY": "EUT"]) == "environment variable BTCPRICED_CURRENCY: \"EUT\" is not an ISO 4217 currency code; did you mean EUR?")
        #expect(error(env: ["BTCPRICED_CURRENCY": "ERU"]).hasSuffix("did you mean EUR?"))
        #expect(error(env: ["BTCPRICED_CURRENCY": "euro"]).contains("is not an ISO 4217 currency code"))
        #expect(error(env: ["BTCPRICED_CURRENCY": "QQQ"]).hasSuffix("use an ISO 4217 code such as USD, EUR, GBP or JPY"))
    }

    @Test func loopbackMayUsePlainHTTP() throws {
        for url in ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9000", "https://api.binance.us"] {
            #expect(try load(env: ["BTCPRICED_BINANCE_URL": url]).restURL(.binance) == url)
        }
    }

    @Test func flagErrorsNameTheFlag() {
        #expect(error(flags: [.interval: "0"]).hasPrefix("--interval: "))
    }

    @Test func emptyEnvironmentValuesCountAsUnset() throws {
        #expect(try load(env: ["BTCPRICED_INTERVAL": ""]).interval == .seconds(1))
    }

    @Test func unknownEnvironmentKeysAreReported() {
        #expect(SettingsLoader.unknownEnvironmentKeys(["BTCPRICED_INTERVAL": "1s", "BTCPRICED_INTERVALL": "2s", "HOME": "/"]) == ["BTCPRICED_INTERVALL"])
    }

    @Test func commandLine() throws {
        #expect(try DaemonCommandLine.parse([]) == .run(DaemonOptions()))
        #expect(try DaemonCommandLine.parse(["--version"]) == .version)
        #expect(try DaemonCommandLine.parse(["--help"]) == .help)
        #expect(try DaemonCommandLine.parse(["--check-config", "--config", "/x.conf"]) == .checkConfig(DaemonOptions(configPath: "/x.conf")))
        #expect(try DaemonCommandLine.parse(["--state-dir=/s", "--socket", "/p", "--interval", "2s", "--log-level", "debug"])
            == .run(DaemonOptions(flags: [.stateDirectory: "/s", .socket: "/p", .interval: "2s", .logLevel: "debug"])))
        #expect(throws: UsageError.self) { try DaemonCommandLine.parse(["--bogus"]) }
        #expect(throws: UsageError.self) { try DaemonCommandLine.parse(["--socket"]) }
        #expect(throws: UsageError.self) { try DaemonCommandLine.parse(["stray"]) }
    }

    /// What the command line asks ends before the daemon runs, with its lines and exit status
    /// (64 usage, 78 configuration), or brings the run's settings and plan.
    @Test func launchAnswersOrBringsTheRun() {
        func ended(_ arguments: [String], _ environment: [String: String] = [:]) -> (Int32, [String], [String])? {
            guard case .exit(let status, let output, let errors) = DaemonLaunch(arguments: arguments, environment: environment) else { return nil }
            return (status, output, errors)
        }
        let version = ended(["--version"])
        #expect(version?.0 == 0 && version?.1 == ["btcpriced \(ProductVersion.current)"] && version?.2 == [], "\(String(describing: version))")
        let usage = ended(["--bogus"])
        #expect(usage?.0 == 64 && usage?.1 == [] && usage?.2.first?.contains("--bogus") == true, "\(String(describing: usage))")
        let badInterval = ended(["--config", "/dev/null", "--interval", "soon"])
        #expect(badInterval?.0 == 78 && badInterval?.2.first?.contains("soon") == true, "\(String(describing: badInterval))")
        guard case .run(_, let settings, let plan, _) = DaemonLaunch(arguments: ["--config", "/dev/null", "--interval", "7s"], environment: [:]) else {
            Issue.record("a valid configuration did not bring a run")
            return
        }
        #expect(settings.interval == .seconds(7) && !plan.active.isEmpty, "interval \(settings.interval), \(plan.active.count) venues")
    }

    /// Found by the config fuzzer: 80 control characters escape to 560 bytes, which with the
    /// list of known sources made a 610-byte line.
    @Test func anEchoedValueIsBoundedInBytesNotOnlyInCharacters() {
        let hostile = "bi" + String(repeating: "\u{17}", count: 200) + "en"
        let message = error(env: ["BTCPRICED_SOURCES": hostile])
        #expect(message.contains("unknown source \"bi\\u{17}") && message.contains("… (204 bytes)"), "\(message)")
        #expect(message.utf8.count < 400 && !message.contains("\u{17}"), "\(message.utf8.count) bytes: \(message)")
        #expect(error(env: ["BTCPRICED_SOURCES": "bybit"]).contains("unknown source \"bybit\"; known sources: binance"), "plain names unchanged")
    }

    @Test func consensusSettingsAreValidated() throws {
        let settings = try load(env: ["BTCPRICED_MODE": "consensus", "BTCPRICED_MAX_DEVIATION": "0.5%", "BTCPRICED_CONSENSUS_MIN": "3",
                                      "BTCPRICED_CONSENSUS_USDT": "yes"])
        #expect(settings.mode == .consensus)
        #expect(settings.maximumDeviation == Decimal(string: "0.005")!)
        #expect(settings.consensusMinimum == 3)
        #expect(settings.consensusIncludesUSDT)
        #expect(error(env: ["BTCPRICED_MAX_DEVIATION": "1"]).contains("is not a percentage like 1%"))
        #expect(error(env: ["BTCPRICED_MAX_DEVIATION": "80%"]).contains("at most 50%"))
        #expect(error(env: ["BTCPRICED_MODE": "vote"]).contains("use fallback or consensus"))
        #expect(error(env: ["BTCPRICED_CONSENSUS_MIN": "0"]).contains("from 1 to \(Venue.catalog.count)"))
        #expect(error(env: ["BTCPRICED_SOURCES": "binance,bybit"]).contains("known sources: binance, coinbase, kraken, bitstamp, cryptocompare, mempool"))
        #expect(error(env: ["BTCPRICED_BINANCE_SYMBOL": "ETHUSDT"]).contains("is not a BTC market symbol"))
        #expect(error(env: ["BTCPRICED_CRYPTOCOMPARE_DAILY_CALLS": "-5"]).contains("whole number"))
    }

    func resolve(env: [String: String], files: [String: String]) throws(ConfigError) -> DaemonSettings {
        try APIKeyResolver.resolve(try load(env: env), environment: env) { files[$0] }
    }

    @Test func theAPIKeyComesFromItsFileTheVariableOrTheCredential() throws {
        let fromFile = try resolve(env: ["BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE": "/etc/btcpriced/key"], files: ["/etc/btcpriced/key": "abc123\n"])
        #expect(fromFile.apiKeys[Venue.cryptocompare.name]?.value == "abc123")
        let fromVariable = try resolve(env: ["BTCPRICED_CRYPTOCOMPARE_API_KEY": "xyz"], files: [:])
        #expect(fromVariable.apiKeys[Venue.cryptocompare.name]?.value == "xyz")
        let fromCredential = try resolve(env: ["CREDENTIALS_DIRECTORY": "/run/credentials/btcpriced.service"],
                                         files: ["/run/credentials/btcpriced.service/cryptocompare-api-key": "cred-key"])
        #expect(fromCredential.apiKeys[Venue.cryptocompare.name]?.value == "cred-key")
        let none = try resolve(env: ["CREDENTIALS_DIRECTORY": "/run/credentials/btcpriced.service"], files: [:])
        #expect(none.apiKeys[Venue.cryptocompare.name] == nil)
    }

    @Test func keyProblemsAreClearAndNeverShowTheKey() {
        func failure(_ env: [String: String], _ files: [String: String]) -> String {
            do { _ = try resolve(env: env, files: files); return "no error" } catch { return error.description }
        }
        let both = failure(["BTCPRICED_CRYPTOCOMPARE_API_KEY": "secret1", "BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE": "/k"], ["/k": "secret2"])
        #expect(both.contains("keep only the file"))
        let missing = failure(["BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE": "/nope"], [:])
        #expect(missing.contains("/nope does not exist"))
        let spaced = failure(["BTCPRICED_CRYPTOCOMPARE_API_KEY_FILE": "/k"], ["/k": "secret with spaces"])
        #expect(spaced.contains("contains spaces"))
        for message in [both, missing, spaced] { #expect(!message.contains("secret")) }
        #expect(APIKey("topsecret").description.contains("topsecret") == false)
        #expect("\(APIKey("topsecret"))".contains("topsecret") == false)
    }

    @Test func aTimeoutThatCannotFitTheIntervalIsRejectedWithTheRule() {
        let message = error(flags: [.interval: "500ms"], env: ["BTCPRICED_TIMEOUT": "800ms"])
        #expect(message.contains("environment variable BTCPRICED_TIMEOUT (800ms) must be shorter than --interval (500ms)"), "\(message)")
        #expect(message.contains("Lower BTCPRICED_TIMEOUT or raise BTCPRICED_INTERVAL"), "\(message)")
    }

    @Test(arguments: [("500ms", "400ms"), ("1s", "800ms"), ("10s", "800ms"), ("100ms", "80ms")])
    func anUnsetTimeoutFollowsTheInterval(interval: String, timeout: String) throws {
        let settings = try load(flags: [.interval: interval])
        #expect(settings.timeout.humanReadable == timeout, "interval \(interval): timeout \(settings.timeout.humanReadable)")
    }

    @Test func watchersPerUserMustLeaveRoomForTheUsersOwnRequests() throws {
        let message = error(env: ["BTCPRICED_USER_CONNECTIONS": "8", "BTCPRICED_USER_WATCHERS": "8"])
        #expect(message.contains("BTCPRICED_USER_WATCHERS (8) must be lower than environment variable BTCPRICED_USER_CONNECTIONS (8)"), "\(message)")
        let settings = try load(env: ["BTCPRICED_USER_CONNECTIONS": "8", "BTCPRICED_USER_WATCHERS": "7"])
        #expect((settings.userConnections, settings.userWatchers) == (8, 7))
        let defaults = try load()
        #expect((defaults.userConnections, defaults.userWatchers) == (128, 64))
    }

    @Test func anEnvironmentTypoGetsTheSameHintAsAFileTypo() {
        #expect(SettingsLoader.unknownEnvironmentWarnings(["BTCPRICED_INTERVL": "2s", "BTCPRICED_INTERVAL": "1s"])
            == ["ignoring unknown environment variable BTCPRICED_INTERVL (did you mean BTCPRICED_INTERVAL?)"])
        #expect(SettingsLoader.unknownEnvironmentWarnings(["BTCPRICED_ZZZZZZZZZZZZZZZZZZZ": "1"])
            == ["ignoring unknown environment variable BTCPRICED_ZZZZZZZZZZZZZZZZZZZ; see btcpriced.conf(5) for valid keys"])
    }

    @Test func echoedValuesAreBoundedAndEscaped() {
        let huge = String(repeating: "x", count: 1_000_000)
        let message = error(env: ["BTCPRICED_INTERVAL": huge + "\n"])
        #expect(message.count < 300)
        #expect(message.contains("(1000001 bytes)"))
        #expect(!message.contains("\n"))
    }
}
