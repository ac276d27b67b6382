import FileStore
import Foundation
import PriceCore

// Times one durable persist (temp file, write, fsync, rename, directory fsync) of quote.json.
// Usage: persist-bench [DIRECTORY] [COUNT]
let arguments = CommandLine.arguments.dropFirst()
let directory = arguments.first ?? NSTemporaryDirectory() + "btcpriced-persist-bench"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 500
let files = StateFiles(directory: directory, currency: "USD")
try files.prepare()
let store = files.quote
let clock = ContinuousClock()
var samples: [Duration] = []
for i in 0..<count {
    let quote = Quote(price: try Price(parsing: "114459.\(i)"), currency: "USDT", symbol: "BTCUSDT", source: "binance",
                      timestamp: Timestamp(millisecondsSinceEpoch: 1_795_276_800_000 + Int64(i)))
    let started = clock.now
    try store.save(quote)
    samples.append(started.duration(to: clock.now))
}
samples.sort()
func micros(_ d: Duration) -> String { String(format: "%.0fus", Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6) }
print("persist: n=\(count) dir=\(directory) p50=\(micros(samples[count / 2])) p99=\(micros(samples[count * 99 / 100])) max=\(micros(samples[count - 1]))")
