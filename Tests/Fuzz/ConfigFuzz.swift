/// Compiled into the DaemonConfig module's sources, so it reaches the internal value parsers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: fuzzBytes(start, count), as: UTF8.self)
    do {
        for assignment in try ConfigFile.parse(text, path: "/etc/btcpriced/btcpriced.conf") {
            checkMessage(ValueParsers.duration(assignment.value))
            checkMessage(ValueParsers.baseURL(assignment.value))
            checkMessage(ValueParsers.sources(assignment.value))
            checkMessage(ValueParsers.symbol(assignment.value))
            checkMessage(ValueParsers.wholeNumber(in: 1...1_000_000)(assignment.value))
            checkMessage(ValueParsers.percentage(assignment.value))
            checkMessage(ValueParsers.yesNo(assignment.value))
            checkMessage(ValueParsers.mode(assignment.value))
        }
    } catch {
        checkLine(error.description)
    }
    return 0
}

private func checkMessage<Value>(_ result: Result<Value, InvalidValue>) {
    if case .failure(let invalid) = result { checkLine(invalid.reason) }
}

private func checkLine(_ message: String) {
    fuzzCheck(!message.contains("\n") && !message.contains("\r"), "message spans lines: \(message)")
    fuzzCheck(message.utf8.count < 600, "message is not bounded: \(message.utf8.count) bytes")
}
