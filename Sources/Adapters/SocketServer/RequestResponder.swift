import PriceCore
import WireProtocol

/// The one place a request is routed: what a parsed request line asks of the server, answered
/// from the daemon's status. Pure (no descriptors, no clock), so the epoll front door and the
/// NIO path answer alike, and a test needs no socket.
public enum RequestResponder {
    public enum Answer: Sendable, Equatable {
        /// The whole reply; the connection closes after it.
        case reply(String)
        /// A `watch` stream: the connection stays open and gets `streamStart` first.
        case startStream
    }

    /// A request that may name a currency: answered from that currency's replies, or refused
    /// with the currencies served.
    public static func answer(_ request: Result<Request.Addressed, ErrorReply>, status: any StatusProvider, version: String) -> Answer {
        switch request {
        case .failure(let error): return .reply(error.line)
        case .success(let addressed):
            guard let currency = addressed.currency else { return answer(.success(addressed.request), status: status, version: version) }
            guard let replies = status.replies(for: currency) else { return .reply(ErrorReply.notServed(currency, served: status.servedCurrencies).line) }
            return answer(.success(addressed.request), status: replies, version: version)
        }
    }

    public static func answer(_ request: Result<Request, ErrorReply>, status: any StatusProvider, version: String) -> Answer {
        switch request {
        case .failure(let error): .reply(error.line)
        case .success(.watch): .startStream
        case .success(.ping): .reply(PingReply.line)
        case .success(.version): .reply(VersionReply(version: version).line)
        case .success(.status): .reply(status.statusReply())
        case .success(.price): .reply(status.priceReply())
        case .success(.sources): .reply(status.sourcesReport())
        case .success(.history(let query)): .reply(status.historyReply(query))
        case .success(.daily(let query)): .reply(status.dailyReply(query))
        case .success(.priceAt(let query)): .reply(status.priceAtReply(query))
        case .success(.metrics): .reply(status.metricsReply())
        case .success(.currencies): .reply(status.currenciesReply())
        }
    }

    /// A `watch` stream's first line: the status as the stream starts.
    public static func streamStart(status: any StatusProvider) -> String { status.firstWatchLine() }
}
