import Exchanges

/// An onion service is reachable only through Tor: without a SOCKS route the daemon would hand
/// the name to the local resolver, which leaks it and cannot answer.
enum OnionRoute {
    /// The first venue URL of the chain that names an .onion host without a SOCKS route; nil when none.
    static func problem(_ settings: DaemonSettings, _ reader: SettingReader) -> String? {
        for venue in settings.catalog where settings.sources.contains(venue.name) {
            var urls = [(SettingKey.restURL(venue), settings.restURL(venue))]
            if let key = SettingKey.streamURL(venue), let url = settings.streamURL(venue) { urls.append((key, url)) }
            for (key, url) in urls where ValueParsers.isOnion(ProxyRules.host(of: url) ?? "") {
                guard settings.proxies.route(for: url).proxy?.isSOCKS == true else {
                    return "\(reader.origin(of: key)): \(quoted(url)) is an .onion address, reachable only through Tor; set BTCPRICED_PROXY=socks5h://127.0.0.1:9050 (Tor's SOCKSPort)"
                }
            }
        }
        return nil
    }
}
