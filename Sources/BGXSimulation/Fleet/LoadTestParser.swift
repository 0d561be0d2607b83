import Yams

/// The `loadtest:` section: `app:` and `requests:`, one request per cause,
/// `{method: POST, path: /v1/sync, headers: {Content-Type: application/json}, body: 2KB}`.
extension ScenarioParser {
    static let loadTestKeys = ["app", "requests"]
    static let requestKeys = ["method", "path", "headers", "body"]

    func loadTest(_ node: Node, bundles: KnownApps) throws -> LoadTest {
        let m = try mapping(node, "loadtest", known: Self.loadTestKeys)
        var t = LoadTest(location: location(node))
        if let n = m["app"] { t.app = try bundle(n, bundles) }
        else if bundles.names.count > 1 {
            throw err(node, "loadtest: name the app whose arrivals are replayed (app: …); the scenario has \(bundles.names.count)")
        }
        guard let requestsNode = m["requests"] else { throw err(node, "loadtest: has no 'requests:' (a request for each cause to replay)") }
        let r = try mapping(requestsNode, "requests", known: FleetResult.causes)
        guard !r.ordered.isEmpty else { throw err(requestsNode, "requests: name at least one cause") }
        for (cause, value) in r.ordered { t.requests[cause] = try request(value, cause) }
        return t
    }

    func request(_ node: Node, _ cause: String) throws -> LoadTest.Request {
        let m = try mapping(node, "a request", known: Self.requestKeys)
        guard let pathNode = m["path"] else { throw err(node, "the \(cause) request has no 'path:' (like /v1/feed)") }
        let path = try scalar(pathNode, "path")
        guard path.hasPrefix("/"), !path.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 || $0 == 127 } ?? false })
        else { throw err(pathNode, "path must start with / and hold no spaces, got '\(path)'") }
        var r = LoadTest.Request(path: path, location: location(node))
        if let n = m["method"] {
            let method = try scalar(n, "method")
            guard LoadTest.methods.contains(method) else { throw unknown(n, "method", method, LoadTest.methods) }
            r.method = method
        }
        if let n = m["headers"] {
            let h = try mapping(n, "headers", known: nil)
            for (name, value) in h.ordered {
                // RFC 9110's token characters for a field name; a value without line breaks.
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0)) })
                else { throw err(h.keyNodes[name], "'\(name)' is not a header name") }
                let text = try scalar(value, name)
                guard !text.contains(where: { $0 == "\n" || $0 == "\r" }) else { throw err(value, "a header value is one line") }
                r.headers[name] = text
            }
        }
        if let n = m["body"] {
            let text = try scalar(n, "body")
            guard let bytes = Units.size(text), bytes <= LoadTest.largestBody else {
                throw err(n, "body must be a size like 2KB, at most 64MB, got '\(text)'")
            }
            r.bodyBytes = bytes
        }
        return r
    }
}
