import ServiceLifecycle

/// Saves the minute history at most once a `period`, only when it changed, and once more at
/// shutdown; with it, makes the days that have ended and saves the daily bars when one changed. Listed before the services that feed the board, so it stops after them.
///
/// Ten minutes: each save is an append and an fdatasync (~12 KB to the device with ext4's
/// journal), about 1.7 MB a day, plus a whole-file rewrite (≤ 520 KB) about once a day; a crash
/// loses at most ten minutes of bars, a clean stop none. Once a minute would be ~17 MB a day.
public struct HistoryService<C: Clock>: Service where C.Duration == Duration {
    public static var defaultPeriod: Duration { .seconds(600) }

    let board: PriceBoard<C>
    let saver: HistorySaver
    let clock: C
    /// Where the daily bars go, made from the minutes as days end; nil: none are kept.
    public var daily: DailySaver?
    /// Makes the days the minute history covers whole (the intake's door).
    public var completeDays: @Sendable () -> Void = {}
    public var period = defaultPeriod

    public init(board: PriceBoard<C>, saver: HistorySaver, clock: C) {
        self.board = board
        self.saver = saver
        self.clock = clock
    }

    public func run() async throws {
        let board = self.board, saver = self.saver, clock = self.clock, period = self.period, daily = self.daily
        let completeDays = self.completeDays
        let save: @Sendable () async -> Void = {
            await saver.save(from: board)
            guard let daily else { return }
            completeDays()
            await daily.save(from: board)
        }
        await cancelWhenGracefulShutdown {
            while true {
                do { try await clock.sleep(for: period) } catch { return }
                await save()
            }
        }
        await save()
    }
}
