import PriceCore
import Streams
import TestClocks
import Testing

/// One connection for several currencies' links (BTCPRICED_CURRENCIES): each link's run sees its
/// own pair, the connection lives while any run does, and the venue sees one link's retries.
@Suite(.timeLimit(.minutes(1)))
struct SharedVenueStreamTests {
    typealias Ending = StreamLink<ManualClock.Instant>.Ending

    /// A connection the test drives: it opens, sends and ends when told.
    final class ScriptedConnection: PriceStream {
        struct Run {
            var opened: @Sendable () -> Void
            var received: @Sendable ([StreamEvent]) -> Void
            var end: CheckedContinuation<Ending, Never>?
        }
        struct State {
            var started = 0
            var live: Run?
        }
        let state = Awaitable(State())

        func run<Instant>(opened: @escaping @Sendable () -> Void,
                          received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending {
            let ending = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
                    state.update { state in
                        state.started += 1
                        state.live = Run(opened: opened, received: received, end: continuation)
                    }
                }
            } onCancel: {
                end(.closed("cancelled"))
            }
            switch ending {
            case .failed(let reason): return .failed(reason)
            case .refused(let status): return .refused(status: status)
            default: return .closed("cancelled")
            }
        }

        func open() { state.value.live?.opened() }
        func send(_ events: [StreamEvent]) { state.value.live?.received(events) }
        func end(_ ending: Ending) {
            let end = state.update { state -> CheckedContinuation<Ending, Never>? in
                defer { state.live = nil }
                return state.live?.end
            }
            end?.resume(returning: ending)
        }
        var isLive: Bool { state.value.live != nil }
    }

    /// What one link's run was told.
    final class Heard: Sendable {
        let state = Awaitable((opened: false, events: [StreamEvent]()))
        var opened: @Sendable () -> Void { { [state] in state.update { $0.opened = true } } }
        var received: @Sendable ([StreamEvent]) -> Void { { [state] events in state.update { $0.events += events } } }
        var events: [StreamEvent] { state.value.events }
    }

    static func trade(_ symbol: String, _ price: String) -> StreamEvent {
        .trade(SourceQuote(price: try! Price(parsing: price), symbol: symbol, quoteAsset: String(symbol.suffix(3))), nil)
    }

    func join(_ shared: SharedVenueStream<ManualClock>, _ symbol: String, _ heard: Heard) -> Task<Ending, Never> {
        let stream = shared.pair(symbol)!
        return Task { await stream.run(opened: heard.opened, received: heard.received) }
    }

    @Test func eachRunHearsItsOwnPairOnTheOneConnection() async throws {
        let (clock, connection) = (ManualClock(), ScriptedConnection())
        let shared = SharedVenueStream(connection: connection, symbols: ["BTC/USD", "BTC/EUR"], clock: clock)
        #expect(shared.pair("BTC/GBP") == nil, "a pair the connection does not carry")
        let (dollar, euro) = (Heard(), Heard())
        let dollarRun = join(shared, "BTC/USD", dollar)
        await connection.state.until { $0.live != nil }
        connection.open()
        await dollar.state.until(\.opened)
        let euroRun = join(shared, "BTC/EUR", euro)
        await euro.state.until(\.opened)
        #expect(connection.state.value.started == 1, "the second run joined the live connection")

        let range = StreamEvent.dayRange(DayRange(open: nil, high: try Price(parsing: "99000"), low: try Price(parsing: "97000")))
        connection.send([Self.trade("BTC/EUR", "89712.4"), range, Self.trade("BTC/USD", "98410.2"), .alive])
        await dollar.state.until { $0.events.count == 2 }
        await euro.state.until { $0.events.count == 3 }
        #expect(dollar.events == [Self.trade("BTC/USD", "98410.2"), .alive])
        #expect(euro.events == [Self.trade("BTC/EUR", "89712.4"), range, .alive], "the day's range goes with the price before it")

        euroRun.cancel()
        #expect(await euroRun.value == .closed("closed by the supervisor"))
        #expect(connection.isLive, "the dollar's run still holds the connection")
        connection.send([Self.trade("BTC/EUR", "89713")])
        connection.send([Self.trade("BTC/USD", "98411")])
        await dollar.state.until { $0.events.count == 3 }
        #expect(euro.events.count == 3, "a run that left hears nothing more: \(euro.events)")
        dollarRun.cancel()
        _ = await dollarRun.value
        #expect(!connection.isLive, "the last run out closed the connection")
    }

    @Test func anEndingEndsEveryRunAndUnprovenConnectionsWaitTheirTurn() async throws {
        let (clock, connection) = (ManualClock(), ScriptedConnection())
        let policy = StreamPolicy()
        let shared = SharedVenueStream(connection: connection, symbols: ["BTCUSDT", "BTCEUR"], policy: policy, clock: clock)
        let (dollar, euro) = (Heard(), Heard())
        let dollarRun = join(shared, "BTCUSDT", dollar), euroRun = join(shared, "BTCEUR", euro)
        await connection.state.until { $0.live != nil }
        connection.end(.failed("connection refused"))
        #expect(await dollarRun.value == .failed("connection refused"))
        #expect(await euroRun.value == .failed("connection refused"), "both links hear the one connection's ending")

        // Both links try again at once: one connection, after the first retry's wait.
        let again = [join(shared, "BTCUSDT", Heard()), join(shared, "BTCEUR", Heard())]
        await clock.untilSleepers(1)
        #expect(connection.state.value.started == 1, "no second connection before \(policy.firstRetry)")
        clock.advance(by: policy.firstRetry)
        await connection.state.until { $0.started == 2 }
        connection.end(.refused(status: 451))
        for run in again { #expect(await run.value == .refused(status: 451)) }

        // Two unproven in a row: twice the wait.
        let third = join(shared, "BTCEUR", Heard())
        await clock.untilSleepers(1)
        clock.advance(by: policy.firstRetry)
        #expect(connection.state.value.started == 2, "the wait doubled after a second unproven connection")
        clock.advance(by: policy.firstRetry)
        await connection.state.until { $0.started == 3 }
        third.cancel()
        _ = await third.value
        #expect(!connection.isLive)
    }
}
