import Logging
import PriceCore

/// Restores and writes `history.txt`; a broken disk is reported once, not every save.
///
/// Saves append the bars from the last minute on disk on (that minute again, as it may have
/// changed since); the file is rewritten whole at the first save after start, after a failed
/// save, after a backfill, and once about a day of lines has been appended, which also drops
/// pruned bars.
public actor HistorySaver {
    /// Appended lines before the file is rewritten whole: about a day's.
    public static let linesBeforeRewrite = 1440

    public let store: any HistoryStore
    private let work: any BlockingWork
    private let logger: Logger
    private var savedVersion = 0
    private var outage: OutageLog
    /// The newest minute in the file; nil when the next save rewrites the file whole.
    private var lastMinuteOnDisk: Int64?
    private var appendedLines = 0
    /// The filled spans in the file: minutes filled before its newest (a backfill) need the
    /// file rewritten whole.
    private var filledOnDisk: [FilledSpan] = []

    public init(store: any HistoryStore, work: any BlockingWork, logger: Logger) {
        self.store = store
        self.work = work
        self.logger = logger
        outage = OutageLog(logger: logger)
    }

    /// A bad file gives an empty history, never a failure to serve.
    public func restore<C>(into intake: PriceIntake<C>) {
        let report = RestoreReport(logger: logger, path: store.path)
        do {
            switch try store.load() {
            case .none:
                logger.info("no price history in \(store.path) yet; changes appear as it fills")
            case .kept(let history):
                let dropped = intake.board.history.restore(history)
                logger.info("restored \(history.bars.count - dropped) minutes of price history from \(store.path)")
                if dropped > 0 {
                    logger.warning("dropped \(dropped) minutes of history stamped in the future (was the clock wrong before?)")
                }
            case .otherCurrency(let other, let movedTo):
                logger.notice("the price history in \(store.path) was in \(other); moved it to \(movedTo) and starting a \(store.currency) history")
            case .quarantined(let reason, let movedTo):
                report.ignoring(reason, then: "moved it to \(movedTo) and starting with no history")
            }
        } catch {
            report.cannotRead("the price history", error)
        }
    }

    /// Whether every span filled now is in the file already (pruning only shortens them).
    private static func file(_ onDisk: [FilledSpan], covers filled: [FilledSpan]) -> Bool {
        filled.allSatisfy { span in
            onDisk.contains { $0.source == span.source && $0.minutes.lowerBound <= span.minutes.lowerBound && span.minutes.upperBound <= $0.minutes.upperBound }
        }
    }

    public func save<C>(from board: PriceBoard<C>) async {
        guard let (history, version) = board.history.minutes(changedSince: savedVersion) else { return }
        let store = self.store
        let newBars: ArraySlice<MinuteBar>? = lastMinuteOnDisk.flatMap { last in
            guard Self.file(filledOnDisk, covers: history.filled), appendedLines < Self.linesBeforeRewrite, let from = history.bars.lastIndex(where: { $0.minute <= last }),
                  history.bars[from].minute == last else { return nil }
            return history.bars[from...]
        }
        lastMinuteOnDisk = nil  // until this save is known to have worked
        do {
            let appended: Int? = try await work.run {
                if let newBars, try store.append(newBars) { return newBars.count }
                try store.save(history)
                return nil
            }
            appendedLines = appended.map { appendedLines + $0 } ?? 0
            lastMinuteOnDisk = history.bars.last?.minute
            filledOnDisk = history.filled
            savedVersion = version
            outage.succeeded("saving \(store.path) works again")
        } catch {
            outage.failed(error, "cannot save \(store.path): \(error); the history is kept in memory and saved when this works again")
        }
    }
}
