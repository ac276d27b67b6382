/// Exit statuses from sysexits(3), which systemd and shell scripts understand.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
    /// EX_CANTCREAT: the socket or the state directory cannot be used.
    public static let cannotCreate: Int32 = 73
    public static let config: Int32 = 78
}
