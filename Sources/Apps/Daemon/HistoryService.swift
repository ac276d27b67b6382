import FileStore
import Logging
import NIOPosix
import PriceCore
import ServiceLifecycle

/// Saves the minute history at most once a `period` (a minute), only when it changed, and once
/// more at shutdown. Listed before the services that feed the board, so it stops after them.
struct HistoryService<C: Clock>: Service where C.Duration == Duration {
    let board: PriceBoard<C>
    let saver: HistorySaver
    let clock: C
    var period = Duration.seconds(60)

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

/// Restores and writes `history.txt`; a broken disk is reported once, not every minute.
actor HistorySaver {
    let store: FileHistoryStore
    private let logger: Logger
    private var savedVersion = 0
    private var failing = false

    init(store: FileHistoryStore, logger: Logger) {
        self.store = store
        self.logger = logger
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
        do {
            try await NIOThreadPool.singleton.runIfActive { try store.save(history) }
            savedVersion = version
            if failing {
                failing = false
                logger.info("saving \(store.path) works again")
            }
        } catch {
            if !failing {
                failing = true
                logger.error("cannot save \(store.path): \(error); the history is kept in memory and saved when this works again", metadata: ["error": "\(error)"])
            }
        }
    }
}
