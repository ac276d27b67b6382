import JSONText
import WireProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // The front door's parse: a request and the currency it may name (protocol 2).
    switch Request.Addressed.parse(fuzzBytes(start, count)) {
    case .success(let request):
        fuzzCheck(Request.Addressed.parse(Array(request.line.dropLast().utf8)) == .success(request), "\(request) does not parse back")
        // An upper-case code, or `watch *`'s every currency.
        let everyCurrency = request.currency == Request.Addressed.everyCurrency && request.request == .watch
        fuzzCheck(request.currency == nil || everyCurrency || (request.currency?.utf8.count == 3 && request.currency == request.currency?.uppercased()),
                  "the currency is not an upper-case code: \(request)")
    case .failure(let reply):
        let line = reply.line
        fuzzCheck(line.utf8.last == 0x0A && line.utf8.dropLast().allSatisfy { $0 != 0x0A }, "reply is not one line: \(line)")
        fuzzCheck((try? JSONValue(parsing: line)).flatMap(ErrorReply.init(json:)) == reply, "reply does not parse back: \(line)")
        fuzzCheck(line.utf8.count < 1024, "reply is not bounded: \(line.utf8.count) bytes")
    }
    return 0
}
