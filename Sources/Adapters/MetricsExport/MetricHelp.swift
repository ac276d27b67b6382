/// Every metric btcpriced exposes, with its HELP text: the list in the README and the alert
/// rules follow it.
public enum MetricHelp {
    public static let text: [String: String] = [
        "btcpriced_build_info": "Always 1; the version label says which btcpriced runs.",
        "btcpriced_price": "The latest BTC price as exact decimal text, by source and the asset it is quoted in.",
        "btcpriced_last_update_timestamp_seconds": "Unix time the daemon received the latest quote.",
        "btcpriced_clock_offset_seconds": "How far the host clock is ahead of the venues' clocks (negative: behind), from the quickest direct answers of the last 10 minutes; beyond 2 s, ages are corrected by it.",
        "btcpriced_stale": "1 when the latest quote is older than BTCPRICED_STALE_AFTER or there is none, else 0.",
        "btcpriced_source_up": "1 when the source answered its last call, 0 when it failed or is cooling down.",
        "btcpriced_fetch_duration_seconds": "Time of each price request to a venue, answered or not.",
        "btcpriced_fetch_failures_total": "Failed price requests by source and reason.",
        "btcpriced_source_requests_total": "Requests made to each venue by kind: price fetches (price) and candles for the history (candles), each at its own pace within the venue's limits.",
        "btcpriced_unconfirmed_prices_total": "Prices a venue sent that moved more than BTCPRICED_CONFIRM_MOVE from a quote under a minute old, held until another venue confirmed them.",
        "btcpriced_rejected_prices_total": "Prices a venue sent that were not served: more than ten times above or below the last quote, or held and then contradicted by another venue.",
        "btcpriced_rate_limit_used": "Request weight the venue reports as used in its window (Binance X-MBX-USED-WEIGHT-1M).",
        "btcpriced_socket_requests_total": "Requests on the Unix socket by request word (invalid for bad ones).",
        "btcpriced_watch_subscribers": "Clients following the watch stream now.",
        "btcpriced_socket_rejected_total": "Connections refused or cut: over the connection cap, over one local user's share (per_user_limit), too slow to send a request, or too slow to read watch lines.",
        "btcpriced_http_requests_total": "Requests on the HTTP listener by route (other for unknown paths).",
        "btcpriced_http_event_streams": "Clients following /api/v1/events now.",
        "btcpriced_http_rejected_total": "HTTP connections or requests refused or cut: over the connection cap, over one address's share (per_address_limit), no request in time, a head over 8 KiB, a Host not answered (misdirected), or too slow to read events (slow_client).",
        "btcpriced_persist_duration_seconds": "Time of each durable write of quote.json.",
        "btcpriced_persist_failures_total": "Failed writes of quote.json.",
        "btcpriced_stream_connected": "1 while the venue's trade stream is live, else 0.",
        "btcpriced_stream_reconnects_total": "Stream connections opened after the first.",
        "btcpriced_mqtt_connected": "1 while connected to the MQTT broker (BTCPRICED_MQTT_URL), else 0.",
        "btcpriced_mqtt_messages_total": "Messages handed to the MQTT broker: the state, the discovery config and the availability.",
    ]
}
