import WireProtocol

extension DaemonSettings {
    /// Every currency the daemon serves, the primary first: `BTCPRICED_CURRENCIES`, else the
    /// one `BTCPRICED_CURRENCY`.
    public var servedCurrencies: [Currency] { currencies.isEmpty ? [currency] : currencies }

    /// The currencies served beside the primary, each by a companion of the primary daemon.
    public var companionCurrencies: ArraySlice<Currency> { servedCurrencies.dropFirst() }

    /// Where `currency`'s quote, history, days and venue restraints are kept: the state
    /// directory itself while one currency is served (as every single-currency install keeps
    /// them), else a directory of its own in it, named by the code in lower case (`eur`).
    public func stateDirectory(of currency: Currency) -> String {
        servedCurrencies.count > 1 ? stateDirectory + "/" + currency.code.lowercased() : stateDirectory
    }

    /// These settings as a companion serving `currency` reads them: its own chain of the venues
    /// that list the pair, streamed from those of them that stream it (on the connection the
    /// currencies share), no MQTT link of its own.
    public func companion(serving currency: Currency) -> DaemonSettings {
        var settings = self
        settings.currency = currency
        settings.currencies = []
        // A venue named for the stream that has no market in this currency: this one polls.
        if stream.problem(currency: currency.code, catalog: catalog) != nil { settings.stream = .off }
        settings.mqtt = MQTTSettings()
        return settings
    }
}
