import JSONText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let value = try? JSONValue(parsing: fuzzBytes(start, count)) else { return 0 }
    let encoded = value.encoded
    let reparsed = try? JSONValue(parsing: encoded)
    fuzzCheck(reparsed == value, "re-encoding changed the document: \(encoded)")
    return 0
}
