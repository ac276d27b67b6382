/// How often a paced stream is read while messages keep coming. Watchers get a line per publish
/// interval, so while anyone watches the stream is read at that interval. With nobody watching,
/// a read's price is seen only by the keepers (history, the saved quote, the stall and silence
/// watch) until someone asks, and then the asker catches the stream up first (the Streams adapter's
/// `PacedReads`, which the composition root puts before every reply):
/// once a second serves the keepers, and a daemon nobody watches wakes once a second for its
/// stream, not four times.
public enum ReadCadence {
    public static let unwatchedAtLeast: Duration = .seconds(1)

    /// The longest a message waits in the kernel while nobody watches or asks; zero (no
    /// interval) reads every message as it comes.
    public static func unwatched(publishInterval: Duration) -> Duration {
        publishInterval > .zero ? max(publishInterval, unwatchedAtLeast) : .zero
    }
}
