/// An ISO 4217 currency as people read it: its code, the symbol written before an amount, and
/// its minor units (2 for cents, 0 for yen). Shared by the daemon (validation, labels) and btcctl
/// (formatting), so both agree without Foundation or a locale.
public struct Currency: Sendable, Hashable, CustomStringConvertible {
    public let code: String
    /// `€`, `£`, `¥`; for a currency without a widely read symbol, its code and a space (`CHF `).
    public let symbol: String
    public let minorUnits: Int

    public var description: String { code }

    /// The currency for an ISO 4217 code, case-insensitive; nil for an unknown code.
    public init?(code: String) {
        let upper = String(code.uppercased())
        guard upper.utf8.count == 3, let minorUnits = Self.minorUnits[upper] else { return nil }
        self.code = upper
        self.minorUnits = minorUnits
        symbol = Self.symbols[upper] ?? upper + " "
    }

    public static let usd = Currency(code: "USD")!

    /// The fiat currencies mempool prices (its `/api/v1/prices`), in its order: what its readers
    /// expect, and what a self-hosted mempool answers.
    public static let mempoolCodes = ["USD", "EUR", "GBP", "CAD", "CHF", "AUD", "JPY"]

    /// Every active ISO 4217 code this table knows, sorted.
    public static let allCodes: [String] = minorUnits.keys.sorted()

    /// The known code closest to `text`, for a "did you mean" hint.
    public static func suggestion(for text: String) -> String? {
        let upper = Array(text.uppercased().utf8)
        guard upper.count >= 2, upper.count <= 4 else { return nil }
        let close = minorUnits.keys.filter { code in
            let candidate = Array(code.utf8)
            let sameLength = candidate.count == upper.count && zip(candidate, upper).filter { $0 != $1 }.count == 1
            let swapped = candidate.count == upper.count && Set(candidate) == Set(upper)
            return sameLength || swapped
        }
        // Prefer the currencies people most often mean.
        return close.min { (Self.common.firstIndex(of: $0) ?? .max, $0) < (Self.common.firstIndex(of: $1) ?? .max, $1) }
    }

    static let common = ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD", "NZD", "SEK", "NOK", "DKK", "PLN", "CZK", "TRY", "BRL", "KRW", "INR"]

    static let symbols: [String: String] = [
        "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$", "HKD": "HK$",
        "SGD": "S$", "INR": "₹", "KRW": "₩", "BRL": "R$", "TRY": "₺", "ILS": "₪", "UAH": "₴", "NGN": "₦",
        "VND": "₫", "PHP": "₱", "MXN": "MX$", "CNY": "CN¥",
    ]

    /// Active ISO 4217 codes and their minor units.
    static let minorUnits: [String: Int] = {
        var table: [String: Int] = [:]
        let twoPlaces = """
            AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF \
            CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD \
            HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK \
            MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD \
            RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS \
            UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG
            """
        for code in twoPlaces.split(separator: " ") { table[String(code)] = 2 }
        for code in ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"] {
            table[code] = 0
        }
        for code in ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"] { table[code] = 3 }
        table["UYW"] = 4
        return table
    }()
}
