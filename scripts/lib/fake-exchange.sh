# Starts the bundled fake exchange and points every venue at it: all five, because the default
# chain would otherwise reach real exchanges. Sets $fake_url and $fake_pid.
# Usage: . scripts/lib/fake-exchange.sh; start_fake_exchange BIN_DIR WORK_DIR
start_fake_exchange() {
  "$1/fake-exchange" > "$2/fake.url" &
  fake_pid=$!
  for _ in $(seq 100); do [ -s "$2/fake.url" ] && break; sleep 0.05; done
  fake_url=$(head -1 "$2/fake.url")
  export BTCPRICED_BINANCE_URL=$fake_url BTCPRICED_COINBASE_URL=$fake_url BTCPRICED_KRAKEN_URL=$fake_url \
    BTCPRICED_BITSTAMP_URL=$fake_url BTCPRICED_CRYPTOCOMPARE_URL=$fake_url
  # The streams too (ws://, same port); the benchmarks measure polling unless they set BTCPRICED_STREAM.
  local ws=${fake_url/http:/ws:}
  export BTCPRICED_BINANCE_STREAM_URL=$ws BTCPRICED_COINBASE_STREAM_URL=$ws/ BTCPRICED_KRAKEN_STREAM_URL=$ws/v2 \
    BTCPRICED_STREAM=${BTCPRICED_STREAM:-off}
}
