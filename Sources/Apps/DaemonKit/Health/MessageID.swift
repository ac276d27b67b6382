/// Stable MESSAGE_ID values (journalctl MESSAGE_ID=…) for the events operators filter on.
public enum MessageID {
    public static let sourceFailing = "3c1b0a9e5f6d4e2a8b7c9d0e1f2a3b4c"
    public static let sourceRecovered = "7d2e4f6a8b0c4d1e9f3a5b7c9d1e3f5a"
    public static let stale = "a4b6c8d0e2f44a6c8e0a2c4e6a8c0e2a"
    public static let firstQuote = "5e7f9a1b3c5d4e6f8a0b2c4d6e8f0a1b"
    /// A venue's price held for confirmation or refused as implausible.
    public static let priceHeld = "e1a3c5e7092b4d6f8a1c3e5f7b9d0a2c"
    /// A held price confirmed, rejected, or served unconfirmed.
    public static let priceSettled = "9b8d7f6e5c4a4b3d2e1f0a9c8b7d6e5f"
    public static let reloaded = "c2d4e6f8a0b24c6e8a0c2e4a6c8e0a2c"
    /// The host's wall clock stepped (NTP, `date -s`).
    public static let clockStepped = "6f1e2d3c4b5a49788796a5b4c3d2e1f0"
}
