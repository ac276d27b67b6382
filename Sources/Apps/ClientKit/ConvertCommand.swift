import JSONText
import WireProtocol

/// `btcctl convert`: an amount in BTC, sats or the daemon's currency at the daemon's price.
extension CtlMain {
    static func convert(_ invocation: CtlInvocation, amount: String, unit: Conversion.Unit, json: Bool) throws(ClientError) -> Int32 {
        let line = try query(.status, invocation)
        let status = try decodeStatus(line)
        guard let price = status.price else {
            Output.error("btcctl: no data: the daemon has no quote yet, so there is no price to convert at\(status.lastError.map { " (\($0))" } ?? "")")
            return CtlExit.staleOrNoData
        }
        guard let conversion = Conversion(amount: amount, unit: unit, price: price, currency: status.currency) else {
            if case .currency(let code) = unit {
                let instance = code.lowercased()
                Output.error("btcctl: convert: the daemon quotes BTC/\(TerminalText.printable(status.currency)), not \(code); "
                    + "convert \(code) with its instance: btcctl --currency \(instance) convert \(amount) \(instance)")
                return CtlExit.usage
            }
            throw ClientError(message: "protocol error: the daemon's price \"\(TerminalText.printable(String(price.prefix(40))))\" is not a positive decimal")
        }
        if json {
            Output.line(JSONValue.object(JSONObject(members: [
                JSONMember(key: "amount", value: .string(amount)),
                JSONMember(key: "unit", value: .string(unitName(unit))),
                JSONMember(key: "btc", value: .string(conversion.btc)),
                JSONMember(key: "sats", value: .string(conversion.sats)),
                JSONMember(key: "fiat", value: .string(conversion.fiat)),
                JSONMember(key: "currency", value: .string(conversion.currency)),
                JSONMember(key: "price", value: .string(price)),
                JSONMember(key: "timestamp", value: .string(orNull: status.timestamp)),
                JSONMember(key: "state", value: .string(status.state.rawValue)),
            ])).encoded)
        } else {
            Output.line(TerminalText.printable(conversion.line(given: unit)))
        }
        if status.state != .fresh {
            let age = status.ageMilliseconds.map { AgeText.compact(milliseconds: $0, spaced: true) + " old" } ?? "of unknown age"
            Output.error("btcctl: the price is stale: \(age)\(status.timestamp.map { " (quote of \(TerminalText.printable($0)))" } ?? ""); "
                + "the figures above use it")
        }
        return exitStatus(for: status)
    }

    /// `btc`, `sats`, or the currency code in lower case, as typed on the command line.
    static func unitName(_ unit: Conversion.Unit) -> String {
        switch unit {
        case .btc: "btc"
        case .sats: "sats"
        case .currency(let code): code.lowercased()
        }
    }
}
