import ListenerKit
import PriceCore
import SocketServer
import Testing

/// Who is dropped when `watch` clients stop reading: the pure rule, without a socket.
@Suite("Slow-watcher policy")
struct SlowWatcherPolicyTests {
    typealias Backlog = SlowWatcherPolicy.Backlog

    let policy = SlowWatcherPolicy(limits: ServerLimits(watchBacklogLimit: 64 * 1024, watchStall: .seconds(30), watchQueueLimit: 1024 * 1024))
    let line = 300

    @Test func aWatcherThatKeepsUpIsSentEveryLineAndHasNoBacklog() {
        let verdict = policy.judge(Backlog(), lineBytes: line, totalQueued: 0, share: 1024, at: .seconds(100))
        #expect(verdict == .send(undrainedSince: nil))
        let drained = policy.judge(Backlog(undrainedSince: .seconds(90)), lineBytes: line, totalQueued: 0, share: 1024, at: .seconds(100))
        #expect(drained == .send(undrainedSince: nil), "a backlog that drained is forgotten: \(drained)")
    }

    @Test func aWatcherThatStopsDrainingIsDroppedAtTheStallLimitAndNotBefore() {
        let behind = Backlog(kernelUnread: true)
        #expect(policy.judge(behind, lineBytes: line, totalQueued: 0, share: 1024, at: .seconds(100)) == .send(undrainedSince: .seconds(100)),
                "the backlog starts now")
        let since = Backlog(kernelUnread: true, undrainedSince: .seconds(100))
        #expect(policy.judge(since, lineBytes: line, totalQueued: 0, share: 1024, at: .milliseconds(129_999)) == .send(undrainedSince: .seconds(100)))
        #expect(policy.judge(since, lineBytes: line, totalQueued: 0, share: 1024, at: .seconds(130)) == .drop, "30 s without draining")
    }

    @Test func itsOwnQueueIsCappedAtTheBacklogLimit() {
        #expect(policy.judge(Backlog(queuedBytes: 64 * 1024 - 1), lineBytes: line, totalQueued: 0, share: 1 << 20, at: .zero)
                == .send(undrainedSince: .zero))
        #expect(policy.judge(Backlog(queuedBytes: 64 * 1024), lineBytes: line, totalQueued: 0, share: 1 << 20, at: .zero) == .drop)
    }

    @Test func overTheTotalOnlyWatchersAboveAnEqualShareGo() {
        let share = policy.share(among: 100)
        #expect(share == 10_485, "a hundredth of 1 MiB")
        let full = 1024 * 1024 - 100
        #expect(policy.judge(Backlog(queuedBytes: share + 1), lineBytes: line, totalQueued: full, share: share, at: .zero) == .drop)
        #expect(policy.judge(Backlog(queuedBytes: share), lineBytes: line, totalQueued: full, share: share, at: .zero) == .send(undrainedSince: .zero),
                "within its share, a watcher is never dropped for the others' backlog")
        #expect(policy.judge(Backlog(queuedBytes: share + 1), lineBytes: line, totalQueued: 1000, share: share, at: .zero) == .send(undrainedSince: .zero),
                "under the total, a share is no limit")
    }

    @Test func theKernelIsSampledOnceAPeriodAndNewcomersAreSpreadOverIt() {
        let firsts = (0..<1000).map { policy.firstSample(at: .seconds(50), spread: UInt($0) * 7919) }
        #expect(firsts.allSatisfy { $0 <= .seconds(50) && $0 > .seconds(49) }, "within the last second")
        #expect(Set(firsts).count > 900, "spread, not all at once: \(Set(firsts).count) distinct")
        #expect(!policy.sampleDue(since: .seconds(50), at: .milliseconds(50_999)))
        #expect(policy.sampleDue(since: .seconds(50), at: .seconds(51)))
    }
}
