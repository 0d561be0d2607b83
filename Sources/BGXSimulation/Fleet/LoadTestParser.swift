import Yams

/// The `loadtest:` section: `app:` and `requests:`, one request per cause,
/// `{method: POST, path: /v1/sync, headers: {Content-Type: application/json}, body: 2KB}`.
extension ScenarioParser {
    typealias LoadTestKey = ScenarioKey<(test: LoadTest, bundles: KnownApps)>

    static let loadTestKeys = ScenarioSection<(test: LoadTest, bundles: KnownApps)>(what: "loadtest", keys: [
        LoadTestKey("app") { p, node, _, d in d.test.app = try p.bundle(node, d.bundles) },
        LoadTestKey("requests", needed: { "loadtest: has no '\($0):' (a request for each cause to replay)" }) { p, node, key, d in
            let r = try p.mapping(node, key, known: FleetResult.causes)
            guard !r.ordered.isEmpty else { throw p.err(node, "\(key): name at least one cause") }
            for (cause, value) in r.ordered { d.test.requests[cause] = try p.request(value, cause) }
        },
    ], declaredOrder: true)

    func loadTest(_ node: Node, bundles: KnownApps) throws -> LoadTest {
        var d = (test: LoadTest(location: location(node)), bundles: bundles)
        try read(Self.loadTestKeys, node, into: &d)
        if d.test.app == nil, bundles.names.count > 1 {
            throw err(node, "loadtest: name the app whose arrivals are replayed (app: …); the scenario has \(bundles.names.count)")
        }
        return d.test
    }

    typealias RequestKey = ScenarioKey<LoadTest.Request>

    static let requestKeys = ScenarioSection<LoadTest.Request>(what: "a request", keys: [
        RequestKey("path") { p, node, key, r in
            let path = try p.scalar(node, key)
            guard path.hasPrefix("/"),
                  !path.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 || $0 == 127 } ?? false })
            else { throw p.err(node, "\(key) must start with / and hold no spaces, got '\(path)'") }
            r.path = path
        },
        RequestKey("method") { p, node, key, r in
            let method = try p.scalar(node, key)
            guard LoadTest.methods.contains(method) else { throw p.unknown(node, key, method, LoadTest.methods) }
            r.method = method
        },
        RequestKey("headers") { p, node, key, r in
            let h = try p.mapping(node, key, known: nil)
            for (name, value) in h.ordered {
                // RFC 9110's token characters for a field name; a value without line breaks.
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0)) })
                else { throw p.err(h.keyNodes[name], "'\(name)' is not a header name") }
                let text = try p.scalar(value, name)
                guard !text.contains(where: { $0 == "\n" || $0 == "\r" }) else { throw p.err(value, "a header value is one line") }
                r.headers[name] = text
            }
        },
        RequestKey("body") { p, node, key, r in
            let text = try p.scalar(node, key)
            guard let bytes = Units.size(text), bytes <= LoadTest.largestBody else {
                throw p.err(node, "\(key) must be a size like 2KB, at most 64MB, got '\(text)'")
            }
            r.bodyBytes = bytes
        },
    ], declaredOrder: true)

    func request(_ node: Node, _ cause: String) throws -> LoadTest.Request {
        // The path is needed, and the message names the cause.
        let m = try mapping(node, Self.requestKeys.what, known: Self.requestKeys.names)
        let path = Self.requestKeys.keys[0]
        guard m[path.name] != nil else { throw err(node, "the \(cause) request has no '\(path.name):' (like /v1/feed)") }
        var r = LoadTest.Request(path: "", location: location(node))
        try read(Self.requestKeys, node, into: &r)
        return r
    }
}
