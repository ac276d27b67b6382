extension StringProtocol {
    /// Without leading and trailing spaces and tabs: how config values and HTTP header values
    /// are read. Line breaks are kept, so a value cannot quietly swallow one.
    public var trimmingBlanks: SubSequence {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
