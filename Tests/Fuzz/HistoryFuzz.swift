import PriceCore

/// history.txt is read back at every start: whatever a torn write, a full disk or a hand edit
/// leaves there must be rejected with a reason or read into a consistent history that writes
/// back to the same bars.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistory(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let history = try? HistoryDocument.decode(fuzzBytes(start, count)) else { return 0 }
    fuzzCheck(history.bars.allSatisfy(\.isConsistent), "an inconsistent bar was accepted")
    fuzzCheck(zip(history.bars, history.bars.dropFirst()).allSatisfy { $0.minute < $1.minute }, "bars out of order")
    let written = HistoryDocument.encode(history)
    fuzzCheck((try? HistoryDocument.decode(Array(written.utf8))) == history, "history does not read back: \(written.prefix(200))")
    return 0
}
