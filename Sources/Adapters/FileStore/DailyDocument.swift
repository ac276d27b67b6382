import FoundationEssentials
import PriceCore

/// `daily.txt`: a header line naming the currency, the first day the venues had when a backfill
/// last asked them all (when one has), then one line per UTC day, oldest first:
///
///     btcpriced-daily 1 EUR
///     from 2017-08-17
///     2026-11-27 113020 115200.5 112010 114459.8
///
/// Plain text like `history.txt`: each line stands alone, and an operator can read it with
/// `tail`. Ten years are about 600 KB.
enum DailyDocument: CurrencyDocument {
    static let header = "btcpriced-daily 1"

    static func encode(_ daily: DailyHistory, currency: String) -> String {
        var text = header + " " + currency + "\n"
        text.reserveCapacity(daily.bars.count * 56 + 48)
        if let first = daily.firstAvailableDay { text += "from \(DailyBar.date(of: first))\n" }
        for bar in daily.bars { text += "\(bar.date) \(bar.open) \(bar.high) \(bar.low) \(bar.close)\n" }
        return text
    }

    /// The currency the header names; nil when it is not a daily file's header.
    static func currency(of bytes: [UInt8]) -> String? {
        let first = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard first.hasPrefix(header + " ") else { return nil }
        let code = first.dropFirst(header.count + 1)
        return code.count == 3 && code.allSatisfy({ $0.isASCII && $0.isUppercase }) ? String(code) : nil
    }

    static func decode(_ bytes: [UInt8]) throws(QuoteDocumentError) -> DailyHistory {
        guard currency(of: bytes) != nil else { throw QuoteDocumentError("it does not start with \"\(header)\" and a currency") }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count > 1 else { throw QuoteDocumentError("it ends in the middle of its header (a torn write?)") }
        var bars: [DailyBar] = []
        var firstAvailableDay: Int64?
        // The file is written whole and renamed into place, so a last line without its newline
        // is not a torn append: every line must be complete.
        guard lines.last?.isEmpty == true else { throw QuoteDocumentError("its last line is cut short") }
        for (index, line) in lines.dropFirst().dropLast().enumerated() {
            let number = index + 2
            let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
            if number == 2, fields.first == "from" {
                guard fields.count == 2, let day = DailyBar.day(of: fields[1]) else { throw QuoteDocumentError("line 2 is not \"from YYYY-MM-DD\"") }
                firstAvailableDay = day
                continue
            }
            guard fields.count == 5, let day = DailyBar.day(of: fields[0]) else {
                throw QuoteDocumentError("line \(number) is not \"YYYY-MM-DD OPEN HIGH LOW CLOSE\"")
            }
            var prices: [Decimal] = []
            for field in fields.dropFirst() {
                do { prices.append(try Price(parsing: field).value) } catch { throw QuoteDocumentError("line \(number): \(error)") }
            }
            let bar = DailyBar(day: day, open: prices[0], high: prices[1], low: prices[2], close: prices[3])
            guard bar.isConsistent else { throw QuoteDocumentError("line \(number): low, high, open and close do not fit together") }
            if let previous = bars.last, previous.day >= day {
                throw QuoteDocumentError("line \(number): \(fields[0]) does not follow \(previous.date)")
            }
            bars.append(bar)
        }
        return DailyHistory(bars: bars, firstAvailableDay: firstAvailableDay)
    }
}
