/// Turns a broken property into a crash that libFuzzer reports with the input that caused it.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property broken: \(message())") }
}

func fuzzBytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: start, count: count))
}
