import JSONText
import PriceCore
import WireProtocol

/// The dashboard at `GET /`: one self-contained page (no font, script, image or style from
/// anywhere else, so it works over Tor and behind a firewall), rendered by the server so it reads
/// without JavaScript, then kept live by its script from `/api/v1/events`, `/api/v1/history`
/// and `/api/v1/sources`. Every text a venue supplied is escaped for HTML here, and set as text
/// (never as markup) by the script.
public struct DashboardPage: Sendable {
    /// Points of the server-drawn chart (the script asks for the same).
    public static let chartPoints = 240

    private let currency: Currency
    private let version: String
    private static let template = PageTemplate(DashboardTemplate.html)

    public init(currency: Currency, version: String) {
        self.currency = currency
        self.version = version
    }

    public struct Rendered: Sendable {
        public let html: String
        public let headers: [(String, String)]
    }

    /// A fresh value for the script's nonce: only the page's own script runs, even if a venue's
    /// text ever got past the escaping.
    public static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16) + String(generator.next() as UInt64, radix: 16)
    }

    /// The page for the replies as they are now, from their values: nothing is parsed back.
    /// `shown` is the currency they are in when it is not the primary; with several `served`,
    /// the page leads with a link to each.
    public func render(status: StatusMessage, sources: SourcesReport?, history: HistoryReply?, nonce: String,
                       shown: Currency? = nil, served: [String] = []) -> Rendered {
        let currency = shown ?? self.currency
        // The query that names the currency shown, for every link and request of the page.
        let query = currency == self.currency ? "" : "currency=" + currency.code
        let state = status.state
        let price = status.price
        let quoteCurrency = status.currency
        let shownPrice = price.map { MoneyText.money($0, currency: quoteCurrency) } ?? "—"
        let values: [String: String] = [
            "TITLE": Self.escape(price.map { _ in "₿ \(shownPrice) \(quoteCurrency)" } ?? "₿ no data") + " · btcpriced",
            "NONCE": nonce,
            "CONFIG": Self.scriptJSON(.object(JSONObject(members: [
                JSONMember(key: "currency", value: .string(currency.code)),
                JSONMember(key: "symbol", value: .string(currency.symbol)),
                JSONMember(key: "minor", value: .number(String(currency.minorUnits))),
                JSONMember(key: "points", value: .number(String(Self.chartPoints))),
                JSONMember(key: "query", value: .string(query)),
            ]))),
            "CURRENCIES": Self.switcher(served, shown: currency.code, primary: self.currency.code),
            "HERE": query.isEmpty ? "" : query + "&amp;",
            "STATUS": Self.scriptJSON(status.json),
            "PAIR": Self.escape("BTC/\(quoteCurrency)"),
            "PRICE": Self.escape(shownPrice),
            "EXACT": Self.escape(price ?? ""),
            "STATE": state.rawValue,
            "STATE_WORDS": Self.stateWords(state),
            "AGE": status.ageMilliseconds.map { Self.escape(AgeText.compact(milliseconds: $0, spaced: true)) + " old" } ?? "",
            "SOURCE": Self.escape(Self.sourceWords(status)),
            "CHANGE_1H": Self.change(status.trend.change1h, id: "c1h", label: "1h"),
            "CHANGE_24H": Self.change(status.trend.change24h, id: "c24h", label: "24h"),
            "CHANGE_7D": Self.change(status.trend.change7d, id: "c7d", label: "7d"),
            "CHART": Self.escape(history.map { ChartPath.path(of: $0.points.map(\.close)) } ?? ""),
            "CHART_RANGE": history?.range.rawValue ?? HistoryRange.day.rawValue,
            "CHART_NOTE": Self.escape(history.map { ChartPath.summary(of: $0, currency: quoteCurrency) } ?? "no history yet"),
        ].merging(Self.chartMarks(history, currency: quoteCurrency)) { $1 }.merging([
            "SOURCES": sources.map(Self.rows) ?? "",
            "COLUMNS": Self.columns.map { "<th>\($0)</th>" }.joined(),
            "STREAM": Self.escape(sources?.stream.map { "stream: \($0.name) \($0.state)" } ?? ""),
            "ERROR": Self.escape(status.lastError ?? ""),
            "VERSION": Self.escape(version),
        ]) { $1 }
        let csp = "default-src 'none'; connect-src 'self'; img-src data:; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return Rendered(html: Self.template.render(values), headers: HTTPRoutes.noStore + [
            ("Content-Security-Policy", csp), ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"),
        ])
    }

    /// A link to each currency served, the one shown marked; nothing with one currency.
    static func switcher(_ served: [String], shown: String, primary: String) -> String {
        guard served.count > 1 else { return "" }
        let links = served.map { code in
            let target = code == primary ? "/" : "/?currency=" + escape(code)
            return "<a href=\"\(target)\"" + (code == shown ? " class=\"on\" aria-current=\"page\"" : "") + ">" + escape(code) + "</a>"
        }
        return "<nav class=\"currencies\" aria-label=\"currency\">" + links.joined() + "</nav>\n"
    }

    /// The chart's low and high marks with their labels, and its time axis.
    static func chartMarks(_ history: HistoryReply?, currency: String) -> [String: String] {
        let axis = history.map(ChartPath.axis) ?? ["", "", ""]
        var values = ["AXIS_0": escape(axis[0]), "AXIS_1": escape(axis[1]), "AXIS_2": escape(axis[2])]
        guard let history, let extremes = ChartPath.extremes(of: history.points.map(\.close)) else { return values }
        values["LOW_MARK"] = "M\(extremes.lowX) \(extremes.lowY)h0"
        values["HIGH_MARK"] = "M\(extremes.highX) \(extremes.highY)h0"
        values["LOW"] = escape("low " + MoneyText.money(extremes.low, currency: currency))
        values["HIGH"] = escape("high " + MoneyText.money(extremes.high, currency: currency))
        values["LOW_STYLE"] = "bottom:-18px;" + ChartPath.labelStyle(x: extremes.lowX)
        values["HIGH_STYLE"] = "top:-18px;" + ChartPath.labelStyle(x: extremes.highX)
        return values
    }

    static func stateWords(_ state: StatusMessage.State) -> String {
        switch state {
        case .fresh: "fresh"
        case .stale: "stale"
        case .nodata: "no data"
        }
    }

    static func sourceWords(_ status: StatusMessage) -> String {
        guard let source = status.source else { return "" }
        let how = status.transport == "stream" ? "streamed" : status.transport == "poll" ? "polled" : ""
        return "from \(source)" + (status.symbol.map { " (\($0))" } ?? "") + (how.isEmpty ? "" : ", \(how)")
    }

    static func change(_ percent: String?, id: String, label: String) -> String {
        let sign = percent.flatMap(DecimalText.sign) ?? 0
        let direction = sign > 0 ? "up" : sign < 0 ? "down" : "flat"
        let text = percent.map { (sign > 0 ? "+" : "") + $0 + "%" } ?? "—"
        return "<div class=\"change \(direction)\" id=\"\(id)\"><span>\(label)</span><b>\(escape(text))</b></div>"
    }

    /// The sources table's columns: its head, and each cell's label where a narrow screen
    /// stacks a row's cells.
    static let columns = ["source", "state", "last price", "latency", "route", "last error"]

    static func rows(_ report: SourcesReport) -> String {
        report.entries.map { entry in
            let cells = [
                (entry.selected ? "* " : "") + entry.name, entry.state, entry.lastPrice.map { MoneyText.grouped($0) + " " + entry.quoteAsset } ?? "—",
                entry.latencyMilliseconds.map { "\($0) ms" } ?? "—", entry.route ?? "—", entry.lastError ?? "—",
            ]
            return "<tr class=\"\(escape(entry.state))\">" + zip(columns, cells).map { "<td data-label=\"\($0)\"><span>\(escape($1))</span></td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
    }

    /// Text for HTML: element content and quoted attribute values alike.
    public static func escape(_ text: String) -> String { MarkupText.escaped(text) }

    /// JSON inside a `<script type="application/json">`: `<` is escaped so no text can close
    /// the element, and the script reads the same value.
    static func scriptJSON(_ value: JSONValue) -> String {
        var out = ""
        for character in value.encoded {
            switch character {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default: out.append(character)
            }
        }
        return out
    }
}

/// A page with `{{NAME}}` holes, split once so each render only joins.
struct PageTemplate: Sendable {
    private let literals: [String]
    private let holes: [String]

    init(_ text: String) {
        var literals: [String] = [], holes: [String] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            literals.append(String(rest[..<open.lowerBound]))
            holes.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        literals.append(String(rest))
        self.literals = literals
        self.holes = holes
    }

    /// Fills every hole from `values`; a hole without a value is left empty.
    func render(_ values: [String: String]) -> String {
        var out = literals[0]
        for (index, hole) in holes.enumerated() {
            out += values[hole] ?? ""
            out += literals[index + 1]
        }
        return out
    }
}
