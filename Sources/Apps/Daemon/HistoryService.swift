import DaemonKit
import FileStore
import Logging
import NIOPosix
import PriceCore
import ServiceLifecycle

/// Saves the minute history at most once a `period`, only when it changed, and once more at
/// shutdown. Listed before the services that feed the board, so it stops after them.
///
/// Ten minutes: each save is an append and an fdatasync (~12 KB to the device with ext4's
/// journal), about 1.7 MB a day, plus a whole-file rewrite (≤ 520 KB) about once a day; a crash
/// loses at most ten minutes of bars, a clean stop none. Once a minute would be ~17 MB a day.
struct HistoryService<C: Clock>: Service where C.Duration == Duration {
    static var defaultPeriod: Duration { .seconds(600) }

    let board: PriceBoard<C>
    let saver: HistorySaver
    let clock: C
    var period = defaultPeriod

    func run() async throws {
        let board = self.board, saver = self.saver, clock = self.clock, period = self.period
        await cancelWhenGracefulShutdown {
            while true {
                do { try await clock.sleep(for: period) } catch { return }
                await saver.save(from: board)
            }
        }
        await saver.save(from: board)
    }
}

/// Restores and writes `history.txt`; a broken disk is reported once, not every save.
///
/// Saves append the bars from the last minute on disk on (that minute again, as it may have
/// changed since); the file is rewritten whole at the first save after start, after a failed
/// save, and once about a day of lines has been appended, which also drops pruned bars.
actor HistorySaver {
    /// Appended lines before the file is rewritten whole: about a day's.
    static let linesBeforeRewrite = 1440

    let store: FileHistoryStore
    private let logger: Logger
    private var savedVersion = 0
    private var outage: OutageLog
    /// The newest minute in the file; nil when the next save rewrites the file whole.
    private var lastMinuteOnDisk: Int64?
    private var appendedLines = 0

    init(store: FileHistoryStore, logger: Logger) {
        self.store = store
        self.logger = logger
        outage = OutageLog(logger: logger)
    }

    /// A bad file gives an empty history, never a failure to serve.
    func restore<C>(into board: PriceBoard<C>) {
        do {
            switch try store.load() {
            case .none:
                logger.info("no price history in \(store.path) yet; changes appear as it fills")
            case .history(let history):
                let dropped = board.restore(history)
                logger.info("restored \(history.bars.count - dropped) minutes of price history from \(store.path)")
                if dropped > 0 {
                    logger.warning("dropped \(dropped) minutes of history stamped in the future (was the clock wrong before?)")
                }
            case .otherCurrency(let other, let movedTo):
                logger.notice("the price history in \(store.path) was in \(other); moved it to \(movedTo) and starting a \(store.currency) history")
            case .quarantined(let reason, let movedTo):
                logger.warning("ignoring unreadable \(store.path) (\(reason)); moved it to \(movedTo) and starting with no history")
            }
        } catch {
            logger.error("cannot read the price history: \(error); starting without it. Check \(store.path) (it should be a regular file the daemon can read and replace)")
        }
    }

    func save<C>(from board: PriceBoard<C>) async {
        guard let (history, version) = board.history(changedSince: savedVersion) else { return }
        let store = self.store
        let newBars: ArraySlice<MinuteBar>? = lastMinuteOnDisk.flatMap { last in
            guard appendedLines < Self.linesBeforeRewrite, let from = history.bars.lastIndex(where: { $0.minute <= last }),
                  history.bars[from].minute == last else { return nil }
            return history.bars[from...]
        }
        lastMinuteOnDisk = nil  // until this save is known to have worked
        do {
            let appended: Int? = try await NIOThreadPool.singleton.runIfActive {
                if let newBars, try store.append(newBars) { return newBars.count }
                try store.save(history)
                return nil
            }
            appendedLines = appended.map { appendedLines + $0 } ?? 0
            lastMinuteOnDisk = history.bars.last?.minute
            savedVersion = version
            outage.succeeded("saving \(store.path) works again")
        } catch {
            outage.failed(error, "cannot save \(store.path): \(error); the history is kept in memory and saved when this works again")
        }
    }
}
