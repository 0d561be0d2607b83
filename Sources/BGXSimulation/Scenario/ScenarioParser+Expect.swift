import BGXCore
import Yams

/// An `expect:` entry: a trace kind, and what its events must show — its
/// own keys, and the fields of the kind (BGXCore's `TraceKind`).
extension ScenarioParser {
    struct ExpectationReading {
        var expectation: Expectation
        /// The entry as written, for the report (`{kind: task.start, app: …}`).
        var described: [String] = []
        var fields: [String] = []
        let bundles: KnownApps
        let context: MomentContext
    }

    typealias ExpectKey = ScenarioKey<ExpectationReading>

    /// Its own keys; `kind` first, since it says which fields the others may name.
    static let expectationKeys = ScenarioSection<ExpectationReading>(what: "an expectation", keys: [
        ExpectKey("kind", needed: { "an expectation needs '\($0):'" }) { p, node, key, d in
            let kind = try p.scalar(node, key)
            if let feature = Self.futureTraceKinds[kind] {
                throw p.err(node, "not yet supported: expectations on \(kind) (\(feature))")
            }
            guard let fields = Self.traceKinds[kind] else {
                throw p.unknown(node, "trace kind", kind, Array(Self.traceKinds.keys).sorted())
            }
            d.expectation.kind = kind
            d.fields = fields
            d.described.append("\(key): \(kind)")
        },
        ExpectKey("app") { p, node, key, d in
            let app = try p.bundle(node, d.bundles)
            d.expectation.app = app
            d.described.append("\(key): \(app)")
        },
        ExpectKey("between") { p, node, key, d in
            let bounds = try p.sequence(node, key)
            guard bounds.count == 2 else { throw p.err(node, "'\(key)' is [FROM, TO]") }
            let from = try p.moment(bounds[0], key, d.context), to = try p.moment(bounds[1], key, d.context)
            guard from <= to else { throw p.err(node, "'\(key)' must run forward in time") }
            d.expectation.between = (from, to)
            d.described.append("\(key): [\(try p.scalar(bounds[0], "")), \(try p.scalar(bounds[1], ""))]")
        },
        ExpectKey("count") { p, node, key, d in
            guard let c = Int(try p.scalar(node, key)), c >= 0 else { throw p.err(node, "\(key) must be a whole number ≥ 0") }
            d.expectation.count = c
            d.described.append("\(key): \(c)")
        },
    ])

    func expectation(_ node: Node, bundles: KnownApps, _ context: MomentContext) throws -> Expectation {
        let section = Self.expectationKeys
        // Any key may be a field of the kind: the keys are checked one by one below.
        let m = try mapping(node, section.what, known: nil)
        let kind = section.keys[0]
        guard let kindNode = m[kind.name] else { throw err(node, kind.needed!(kind.name)) }
        var d = ExpectationReading(expectation: Expectation(kind: "", app: nil, fields: [], between: nil, count: nil,
                                                            location: location(node), text: ""),
                                   bundles: bundles, context: context)
        try kind.read(self, kindNode, kind.name, &d)
        for (key, value) in m.ordered where key != kind.name {
            if let own = section.keys.first(where: { $0.name == key }) {
                try own.read(self, value, key, &d)
                continue
            }
            guard d.fields.contains(key) else {
                throw unknown(m.keyNodes[key]!, "field of \(d.expectation.kind) events", key,
                              section.names.dropFirst() + d.fields)
            }
            let v = try scalar(value, key)
            d.expectation.fields.append((key, v))
            d.described.append("\(key): \(v)")
        }
        d.expectation.text = "{" + d.described.joined(separator: ", ") + "}"
        return d.expectation
    }
}
