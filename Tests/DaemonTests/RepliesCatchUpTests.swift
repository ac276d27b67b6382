import Streams
import DaemonKit
import DaemonKitTesting
import PriceCore
import Testing
import WireProtocol

/// A stream nobody watches is read less often than the publish interval: every reply the root
/// serves first asks it to read what it holds (the real stream's loop does so without the reply
/// waiting; this stand-in applies it at once, so what each reply serves shows it asked).
@Suite("Replies catch the stream up before they answer")
struct RepliesCatchUpTests {
    @Test func everyReplyServesWhatTheStreamHeldWhenAsked() throws {
        let (board, _, _) = makeBoard()
        let intake = makeIntake(board)
        let held = HeldTrades(intake: intake)
        let replies = CaughtUpReplies(try makeReplies(board), catchUp: { held.catchUp() }, watcherJoins: { held.watcherJoins() })
        intake.stream(quote("114459.75"))
        held.arrives(quote("114459.81"))
        #expect(board.priceReply().contains("114459.75"), "the board alone has not read it: \(board.priceReply())")

        let answers: [(name: String, price: String, reply: () -> String)] = [
            ("price", "114459.81", { replies.priceReply() }),
            ("status", "114459.82", { replies.statusReply() }),
            ("sources", "114459.83", { replies.sourcesReport() }),
            ("metrics", "114459.84", { replies.metricsReply() }),
            ("watch's first line", "114459.85", { replies.firstWatchLine() }),
        ]
        for (name, price, reply) in answers {
            if price != "114459.81" { held.arrives(quote(price)) }
            let line = reply()
            #expect(line.contains(price), "the \(name) reply serves the held \(price): \(line)")
        }
        #expect(held.catchUps == answers.count, "one catch-up per reply: \(held.catchUps)")
        #expect(held.watchersJoined == 1, "the watch's first line says a watcher joins: \(held.watchersJoined)")
        held.arrives(quote("114459.86"))
        _ = replies.dailyReply(DailyQuery())
        #expect(held.catchUps == answers.count, "days do not wait for the latest trade: \(held.catchUps) catch-ups")
    }
}
