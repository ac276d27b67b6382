import PriceCore
import Testing

/// The host clock's offset from the venues', learnt from direct answers and anchored on the
/// monotonic clock, so that a step of the host clock moves it at once.
@Suite("Host clock offset from the venues' answers")
struct HostClockOffsetTests {
    let venueNow = Timestamp(millisecondsSinceEpoch: 1_795_300_000_000)
    let hour: Int64 = 3_600_000

    /// Answers each second for a minute, each made `travel` ms before it came, on a host clock
    /// that is right; returns the estimate and the monotonic time of the last answer.
    func healthy(travel: Int64 = 40) -> (HostClockOffset, Duration) {
        var offset = HostClockOffset()
        for second in 0..<60 {
            let origin = venueNow.adding(milliseconds: Int64(second) * 1000)
            offset.observe(origin: origin, atMonotonic: .milliseconds(Int64(second) * 1000 + travel))
        }
        return (offset, .milliseconds(59_000 + travel))
    }

    @Test func aRightClockNeedsNoCorrection() throws {
        let (offset, monotonic) = healthy()
        let wallTime = venueNow.adding(milliseconds: 59_040)
        #expect(offset.estimate(wallTime: wallTime, atMonotonic: monotonic) == .milliseconds(40), "the quickest answer's travel")
        #expect(offset.correction(wallTime: wallTime, atMonotonic: monotonic) == .zero)
    }

    @Test func aStepOfTheHostClockMovesTheEstimateAtOnce() throws {
        let (offset, monotonic) = healthy()
        // The host clock steps an hour ahead; no answer has come since.
        let stepped = venueNow.adding(milliseconds: 59_040 + hour)
        let correction = offset.correction(wallTime: stepped, atMonotonic: monotonic)
        #expect(correction == .milliseconds(hour + 40), "\(correction)")
        // An answer made now on the venue's clock is dated as the travel time old, not an hour.
        let origin = venueNow.adding(milliseconds: 60_000)
        let dated = ExchangeTime.stamp(origin: origin, receivedAt: stepped.adding(milliseconds: 1_000), hostAhead: correction)
        #expect(dated.ageOnArrival == .zero, "\(dated.ageOnArrival)")
        let uncorrected = ExchangeTime.stamp(origin: origin, receivedAt: stepped.adding(milliseconds: 1_000))
        #expect(uncorrected.ageOnArrival == .milliseconds(hour + 40), "without it, an hour old: \(uncorrected.ageOnArrival)")
        // Behind by an hour: the same, the other way.
        let behind = venueNow.adding(milliseconds: 59_040 - hour)
        #expect(offset.correction(wallTime: behind, atMonotonic: monotonic) == .milliseconds(40 - hour))
    }

    @Test func aCacheStillShowsItsAgeOnAWrongClock() throws {
        let (offset, monotonic) = healthy()
        let stepped = venueNow.adding(milliseconds: 59_040 + hour)
        let correction = offset.correction(wallTime: stepped, atMonotonic: monotonic)
        // A cache's copy, made 30 s before on the venue's clock, and one whose Age says 45 s.
        let thirty = ExchangeTime.stamp(origin: venueNow.adding(milliseconds: 29_000), receivedAt: stepped, hostAhead: correction)
        #expect(thirty.ageOnArrival == .seconds(30) && thirty.timestamp == stepped.adding(milliseconds: -30_000), "\(thirty)")
        let aged = ExchangeTime.stamp(origin: venueNow.adding(milliseconds: 59_000), cacheAge: .seconds(45), receivedAt: stepped, hostAhead: correction)
        #expect(aged.ageOnArrival == .seconds(45), "\(aged.ageOnArrival)")
    }

    @Test func aVenueWhoseClockStepsBackDoesNotMoveTheEstimate() throws {
        var (offset, monotonic) = healthy()
        let wallTime = venueNow.adding(milliseconds: 60_040)
        monotonic += .seconds(1)
        // Its answer says it was made an hour ago: that venue is wrong, or a cache lags.
        offset.observe(origin: venueNow.adding(milliseconds: 60_000 - hour), atMonotonic: monotonic)
        #expect(offset.correction(wallTime: wallTime, atMonotonic: monotonic) == .zero)
    }

    @Test func samplesOlderThanTheWindowAreForgotten() throws {
        var (offset, monotonic) = healthy()
        monotonic += HostClockOffset.window + .seconds(61)
        #expect(offset.estimate(wallTime: venueNow, atMonotonic: monotonic) == nil, "no answer in the window")
        // A venue an hour behind ever since: once the old samples are gone, that is the host's offset.
        offset.observe(origin: venueNow.adding(milliseconds: monotonic.wholeMilliseconds - hour), atMonotonic: monotonic)
        let wallTime = venueNow.adding(milliseconds: monotonic.wholeMilliseconds)
        #expect(offset.estimate(wallTime: wallTime, atMonotonic: monotonic) == .milliseconds(hour))
    }

    @Test func afterASuspendTheFirstAnswerSetsTheEstimate() throws {
        // The monotonic clock stood still for a night while the wall clock went on.
        var (offset, monotonic) = healthy()
        let night: Int64 = 8 * hour
        let wallTime = venueNow.adding(milliseconds: 59_040 + night + 1_000)
        monotonic += .seconds(1)
        #expect(offset.correction(wallTime: wallTime, atMonotonic: monotonic) != .zero, "before any answer, it cannot tell")
        offset.observe(origin: venueNow.adding(milliseconds: 60_000 + night), atMonotonic: monotonic)
        #expect(offset.estimate(wallTime: wallTime, atMonotonic: monotonic) == .milliseconds(40))
    }
}
