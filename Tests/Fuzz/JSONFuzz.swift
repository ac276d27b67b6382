import JSONText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let parsed = try? JSONValue(parsing: bytes)
    // The quick member scan may give up on anything, but never accepts what the parser refuses.
    let scanned = bytes.withUnsafeBufferPointer { JSONMemberScan.scan($0) { _ in true } }
    fuzzCheck(!scanned || parsed != nil, "the member scan accepted a text the parser refuses")
    guard let value = parsed else { return 0 }
    let encoded = value.encoded
    let reparsed = try? JSONValue(parsing: encoded)
    fuzzCheck(reparsed == value, "re-encoding changed the document: \(encoded)")
    return 0
}
