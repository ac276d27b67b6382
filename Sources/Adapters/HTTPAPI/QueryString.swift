import PriceCore

/// A request target split into its path and its query's parameters, percent-decoded. Only what
/// the routes need: no `+` for space (the values taken are codes and numbers), and a parameter
/// given twice keeps its first value.
struct RequestTarget: Sendable, Equatable {
    let path: String
    let parameters: [String: String]

    init(_ uri: String) {
        // Most targets are a plain path: nothing to split or decode.
        if !uri.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "%") }) {
            path = uri
            parameters = [:]
            return
        }
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? uri
        path = rawPath.percentDecoded ?? rawPath
        var parameters: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = keyValue[0].percentDecoded, parameters[key] == nil else { continue }
                parameters[key] = keyValue.count == 2 ? keyValue[1].percentDecoded ?? "" : ""
            }
        }
        self.parameters = parameters
    }
}
