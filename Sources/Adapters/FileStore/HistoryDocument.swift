import FoundationEssentials
import PriceCore

/// `history.txt`: a header line, then one line per minute bar, oldest first:
///
///     btcpriced-history 1 EUR
///     filled 29880000 29889999 binance
///     29880000 114210.5 114230 114200 114222.1
///     …
///     29890000 114459.8 114470 114455.5 114461.2
///     29890001 114461.2
///
/// A `filled FIRST LAST VENUE` line says those minutes came from the venue's candles, not from
/// prices the daemon saw (the backfill); they follow the header. The header names the currency; a dollar history keeps the plain `btcpriced-history 1` that
/// versions before currencies wrote (and read). The minute counts from the Unix epoch; one
/// price means open = high = low = close. Plain
/// text, because every line stands alone (a torn or edited line is found and named, and the
/// minutes are absolute, so nothing after it shifts), exact decimals need no encoding, and an
/// operator can read it with `tail`. A week of bars is about 10,600 lines, at most ~520 KB.
///
/// New bars are appended rather than the file rewritten (see FileHistoryStore.append), so a
/// minute may appear again right after itself, the later line being the newer bar, and a last
/// line cut short by a crash during an append is dropped rather than condemning the file.
enum HistoryDocument: CurrencyDocument {
    static let header = "btcpriced-history 1"

    static func encode(_ history: PriceHistory, currency: String = "USD") -> String {
        header(currency: currency) + "\n" + history.filled.map { "filled \($0.minutes.lowerBound) \($0.minutes.upperBound) \($0.source)\n" }.joined()
            + lines(history.bars[...])
    }

    static func header(currency: String) -> String { currency == "USD" ? header : header + " " + currency }

    /// The currency a document's header names (`USD` for the plain header); nil when it has none.
    static func currency(of bytes: [UInt8]) -> String? {
        let first = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        if first == header { return "USD" }
        guard first.hasPrefix(header + " ") else { return nil }
        let code = first.dropFirst(header.count + 1)
        return code.count == 3 && code.allSatisfy({ $0.isASCII && $0.isUppercase }) ? String(code) : nil
    }

    static func lines(_ bars: ArraySlice<MinuteBar>) -> String {
        var text = ""
        text.reserveCapacity(bars.count * 48 + 32)
        for bar in bars {
            text += String(bar.minute)
            if bar.open == bar.close, bar.high == bar.close, bar.low == bar.close {
                text += " \(bar.close)\n"
            } else {
                text += " \(bar.open) \(bar.high) \(bar.low) \(bar.close)\n"
            }
        }
        return text
    }

    static func decode(_ bytes: [UInt8]) throws(QuoteDocumentError) -> PriceHistory {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.first != nil, currency(of: bytes) != nil else {
            throw QuoteDocumentError("it does not start with \"\(header)\" and a currency")
        }
        guard lines.count > 1 else { throw QuoteDocumentError("it ends in the middle of its header (a torn write?)") }
        var bars: [MinuteBar] = []
        var filled: [FilledSpan] = []
        bars.reserveCapacity(lines.count)
        // The last piece is empty after a final newline, else a line an append left unfinished.
        for (index, line) in lines.dropFirst().dropLast().enumerated() {
            let number = index + 2
            let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
            if fields.first == "filled" {
                filled.append(try filledSpan(fields, line: number))
                continue
            }
            guard fields.count == 2 || fields.count == 5, fields[0].count <= 12, fields[0].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let minute = Int64(fields[0])
            else { throw QuoteDocumentError("line \(number) is not \"MINUTE PRICE\" or \"MINUTE OPEN HIGH LOW CLOSE\"") }
            var prices: [Decimal] = []
            for field in fields.dropFirst() {
                do { prices.append(try Price(parsing: field).value) } catch { throw QuoteDocumentError("line \(number): \(error)") }
            }
            let bar = prices.count == 1 ? MinuteBar(minute: minute, open: prices[0], high: prices[0], low: prices[0], close: prices[0])
                : MinuteBar(minute: minute, open: prices[0], high: prices[1], low: prices[2], close: prices[3])
            guard bar.isConsistent else { throw QuoteDocumentError("line \(number): low, high, open and close do not fit together") }
            if let previous = bars.last, previous.minute >= minute {
                guard previous.minute == minute else {
                    throw QuoteDocumentError("line \(number): minute \(minute) does not follow \(previous.minute)")
                }
                bars.removeLast()
            }
            bars.append(bar)
        }
        return PriceHistory(bars: bars, filled: filled)
    }

    /// `filled FIRST LAST VENUE`.
    private static func filledSpan(_ fields: [String], line number: Int) throws(QuoteDocumentError) -> FilledSpan {
        func minute(_ text: String) -> Int64? { text.count <= 12 && text.allSatisfy { $0.isASCII && $0.isNumber } ? Int64(text) : nil }
        guard fields.count == 4, let first = minute(fields[1]), let last = minute(fields[2]), first <= last,
              (1...32).contains(fields[3].utf8.count), fields[3].utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d })
        else { throw QuoteDocumentError("line \(number) is not \"filled FIRST LAST VENUE\"") }
        return FilledSpan(minutes: first...last, source: SourceName(fields[3]))
    }
}
