@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTT(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    // What a broker sends, read as the connection's handler reads it: packet after packet
    // until one is incomplete or wrong.
    var pending = Array(fuzzBytes(start, count))
    while true {
        let parsed: (packet: MQTTInbound, length: Int)?
        do {
            parsed = try MQTTInbound.parse(pending)
        } catch {
            fuzzCheck(error.description.utf8.count < 200, "an error is not bounded: \(error.description)")
            return 0
        }
        guard let (packet, length) = parsed else {
            fuzzCheck(pending.count < MQTTInbound.longestPacket, "\(pending.count) bytes held waiting for more")
            return 0
        }
        fuzzCheck(length > 0 && length <= min(pending.count, MQTTInbound.longestPacket), "took \(length) of \(pending.count) bytes")
        fuzzCheck((try? MQTTInbound.parse(Array(pending.prefix(length))))??.packet == packet, "\(packet) does not parse alone")
        if case .connectionRefused(let refusal) = packet { fuzzCheck(!refusal.description.isEmpty, "a refusal says nothing") }
        pending.removeFirst(length)
    }
}
