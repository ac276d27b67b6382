import JSONText
import WireProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    switch Request.parse(fuzzBytes(start, count)) {
    case .success(let request):
        fuzzCheck(Request.parse(Array(request.line.dropLast().utf8)) == .success(request), "\(request) does not parse back")
    case .failure(let reply):
        let line = reply.line
        fuzzCheck(line.utf8.last == 0x0A && line.utf8.dropLast().allSatisfy { $0 != 0x0A }, "reply is not one line: \(line)")
        fuzzCheck((try? JSONValue(parsing: line)).flatMap(ErrorReply.init(json:)) == reply, "reply does not parse back: \(line)")
        fuzzCheck(line.utf8.count < 1024, "reply is not bounded: \(line.utf8.count) bytes")
    }
    return 0
}
