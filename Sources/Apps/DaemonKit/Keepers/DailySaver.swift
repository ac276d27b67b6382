import Logging
import PriceCore

/// Restores and writes `daily.txt`, whole, when a day changed; a broken disk is reported once.
public actor DailySaver {
    public let store: any DailyStore
    private let work: any BlockingWork
    private let logger: Logger
    private var savedVersion = 0
    private var outage: OutageLog

    public init(store: any DailyStore, work: any BlockingWork, logger: Logger) {
        self.store = store
        self.work = work
        self.logger = logger
        outage = OutageLog(logger: logger)
    }

    /// A bad file gives no daily bars, never a failure to serve.
    public func restore<C>(into intake: PriceIntake<C>) {
        let report = RestoreReport(logger: logger, path: store.path)
        do {
            switch try store.load() {
            case .none:
                intake.board.history.restore(DailyHistory())
            case .kept(let daily):
                intake.board.history.restore(daily)
                logger.info("restored \(daily.bars.count) days of daily prices from \(store.path)")
            case .otherCurrency(let other, let movedTo):
                logger.notice("the daily prices in \(store.path) were in \(other); moved them to \(movedTo)")
                intake.board.history.restore(DailyHistory())
            case .quarantined(let reason, let movedTo):
                report.ignoring(reason, then: "moved it to \(movedTo); days are made again from the minute history")
                intake.board.history.restore(DailyHistory())
            }
        } catch {
            report.cannotRead("the daily prices", error)
            intake.board.history.restore(DailyHistory())
        }
    }

    public func save<C>(from board: PriceBoard<C>) async {
        guard let (daily, version) = board.history.daily(changedSince: savedVersion) else { return }
        let store = self.store
        do {
            try await work.run { try store.save(daily) }
            savedVersion = version
            outage.succeeded("saving \(store.path) works again")
        } catch {
            outage.failed(error, "cannot save \(store.path): \(error); the daily prices are kept in memory and saved when this works again")
        }
    }
}
