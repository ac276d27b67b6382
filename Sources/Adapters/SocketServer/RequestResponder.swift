import ListenerKit
import PriceCore
import WireProtocol

/// The one place a request is routed: what a parsed request line asks of the server, answered
/// from the daemon's status. Pure (no descriptors, no clock), so the epoll front door and the
/// NIO path answer alike, and a test needs no socket.
public enum RequestResponder {
    public enum Answer: Sendable, Equatable {
        /// The whole reply; the connection closes after it.
        case reply(String)
        /// A `watch` stream of the topic's lines: the connection stays open and gets `streamStart` first.
        case startStream(WatchTopic)
    }

    /// A request that may name a currency: answered from that currency's replies, or refused
    /// with the currencies served.
    public static func answer(_ request: Result<Request.Addressed, ErrorReply>, status: any StatusProvider, version: String) -> Answer {
        switch request {
        case .failure(let error): return .reply(error.line)
        case .success(let addressed):
            guard let currency = addressed.currency else { return answer(.success(addressed.request), status: status, version: version) }
            if addressed.request == .watch { return watch(currency, status: status) }
            guard let replies = status.replies(for: currency) else { return .reply(ErrorReply.notServed(currency, served: status.servedCurrencies).line) }
            return answer(.success(addressed.request), status: replies, version: version)
        }
    }

    public static func answer(_ request: Result<Request, ErrorReply>, status: any StatusProvider, version: String) -> Answer {
        switch request {
        case .failure(let error): .reply(error.line)
        case .success(.watch): .startStream(.primary)
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

    /// `watch EUR` (the primary's code is the primary) or `watch *`.
    private static func watch(_ currency: String, status: any StatusProvider) -> Answer {
        if currency == Request.Addressed.everyCurrency { return .startStream(.every) }
        guard status.replies(for: currency) != nil else { return .reply(ErrorReply.notServed(currency, served: status.servedCurrencies).line) }
        return .startStream(currency == status.servedCurrencies.first ? .primary : .currency(currency))
    }

    /// A `watch` stream's first lines: the status of each currency it follows as the stream starts.
    public static func streamStart(status: any StatusProvider, topic: WatchTopic = .primary) -> String {
        switch topic {
        case .primary: status.firstWatchLine()
        case .currency(let code): (status.replies(for: code) ?? status).firstWatchLine()
        case .every: status.servedCurrencies.compactMap { status.replies(for: $0)?.firstWatchLine() }.joined()
        }
    }
}
