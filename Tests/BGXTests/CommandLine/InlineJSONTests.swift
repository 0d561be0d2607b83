import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// The JSON bgx wrote by hand is written by `Encodable` types through
/// `InlineJSONEncoder`, byte for byte as before: each test keeps the old
/// hand-written form as the reference.
@Suite("JSON written by Encodable, byte for byte as by hand")
struct InlineJSONTests {
    struct Sample: Encodable {
        struct Inner: Encodable { let b: Bool; let quote: String }
        let zeta: Int
        let alpha: Double
        let list: [Int64]
        let empty: [String]
        let inner: Inner
        let raw: JSONFragment
    }

    @Test("keys in declaration order, the trace's separators and escaping, a fragment as it is")
    func style() throws {
        let s = Sample(zeta: -3, alpha: 0.125, list: [1, 2], empty: [], inner: .init(b: true, quote: "a \"b\"\n\\/é"),
                       raw: JSONFragment("{\"x\": 1}"))
        #expect(try InlineJSONEncoder().encode(s)
                == #"{"zeta": -3, "alpha": 0.125, "list": [1, 2], "empty": [], "inner": {"b": true, "quote": "a \"b\"\n\\/é"}, "raw": {"x": 1}}"#)
    }

    struct Optionals: Encodable {
        struct Inner: Encodable { let a: Int }
        let int: Int?
        let double: Double?
        let string: String?
        let bool: Bool?
        let int64: Int64?
        let inner: Inner?
        let list: [String]?
        let number: JSONNumber?
        @OmittedWhenNil var gone: Int?
        @OmittedWhenNil var kept: String?
        let last: Int
    }

    @Test("a nil optional is written null, an @OmittedWhenNil nil is left out, a present one is written")
    func nilRules() throws {
        let none = Optionals(int: nil, double: nil, string: nil, bool: nil, int64: nil, inner: nil, list: nil, number: nil,
                             gone: nil, kept: nil, last: 1)
        #expect(try InlineJSONEncoder().encode(none)
                == #"{"int": null, "double": null, "string": null, "bool": null, "int64": null, "inner": null, "list": null, "number": null, "last": 1}"#)
        let some = Optionals(int: -1, double: 0.5, string: "s", bool: false, int64: 1 << 40, inner: .init(a: 2), list: [],
                             number: JSONNumber("1.000000001"), gone: 3, kept: "k", last: 1)
        #expect(try InlineJSONEncoder().encode(some)
                == #"{"int": -1, "double": 0.5, "string": "s", "bool": false, "int64": 1099511627776, "inner": {"a": 2}, "list": [], "number": 1.000000001, "gone": 3, "kept": "k", "last": 1}"#)
        // In an array a nil is null too.
        #expect(try InlineJSONEncoder().encode([1, nil, 3] as [Int?]) == "[1, null, 3]")
    }

    @Test("a JSONNumber is written as its text, JSONMembers in the order given")
    func numberAndMemberRules() throws {
        // Time.format's exact decimals, where Swift would print 1e-09 or 90.5 differently.
        #expect(try InlineJSONEncoder().encode([JSONNumber(Time.format(1)), JSONNumber(Time.format(Time.seconds(90.5))),
                                                JSONNumber(Time.format(Time.hours(1)))]) == "[0.000000001, 90.5, 3600]")
        #expect(try InlineJSONEncoder().encode(0.000_000_001) == "1e-09")
        let members = JSONMembers([(key: "zeta", value: JSONNumber("1.50")), (key: "alpha", value: JSONNumber("2")),
                                   (key: "a \"q\"", value: JSONNumber("-0"))])
        #expect(try InlineJSONEncoder().encode(members) == #"{"zeta": 1.50, "alpha": 2, "a \"q\"": -0}"#)
        #expect(try InlineJSONEncoder().encode(JSONMembers<Int>([])) == "{}")
        // Another encoder gets a JSONNumber as a number, not as its text in quotes.
        #expect(String(decoding: try JSONEncoder().encode([JSONNumber("90.5")]), as: UTF8.self) == "[90.5]")
    }

    /// Could write the trace: every line of a week, encoded from the event's
    /// fields, is the line TraceRenderer writes. (The trace stays written by
    /// hand: it is the engine's hot path, see InlineJSONEncoder.)
    struct TraceLine: Encodable {
        let event: TraceEvent
        let renderer: TraceRenderer
        struct Key: CodingKey {
            let stringValue: String
            init(_ s: String) { stringValue = s }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(JSONFragment(Time.format(event.time)), forKey: Key("t"))
            if let app = event.app { try c.encode(renderer.names.app(app), forKey: Key("app")) }
            try c.encode(event.kindName, forKey: Key("kind"))
            for (name, value) in renderer.fields(of: event) {
                switch value {
                case let .string(s): try c.encode(s, forKey: Key(name))
                case let .bool(b): try c.encode(b, forKey: Key(name))
                case let .number(n): try c.encode(JSONFragment(TraceField.numberText(n)), forKey: Key(name))
                }
            }
        }
    }

    @Test("a week's trace, encoded line by line, is the trace byte for byte")
    func traceByteForByte() throws {
        let path = repositoryRoot.appendingPathComponent("docs/examples/podcasts.yaml").path
        let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
        run.run()
        let renderer = run.device.renderer
        let encoder = InlineJSONEncoder()
        #expect(run.device.trace.count > 100)
        for event in run.device.trace {
            #expect(try encoder.encode(TraceLine(event: event, renderer: renderer)) == renderer.jsonLine(event))
        }
    }

    @Test("bgx bench --json is what the hand-written form gave")
    func benchmark() {
        for r in [Benchmark.Result(events: 10, traceEvents: 5, deliveries: 3, apps: 2, heapShare: 0.5, engineSeconds: 2,
                                   bareHeapSeconds: 1, engineRounds: [2, 4], bareHeapRounds: [1]),
                  Benchmark.Result(events: 1_234_567, traceEvents: 98_765, deliveries: 4321, apps: 64, heapShare: 0.3333,
                                   engineSeconds: 0.37, bareHeapSeconds: 0.11, engineRounds: [0.37, 0.41, 0.52],
                                   bareHeapRounds: [])] {
            #expect(r.json == Self.handWritten(r))
        }
    }

    /// `Benchmark.Result.json` as it was written by hand.
    static func handWritten(_ r: Benchmark.Result) -> String {
        func n(_ d: Double) -> String { String(Int64(d.rounded())) }
        return "{\"events\": \(r.events), \"traceEvents\": \(r.traceEvents), \"apps\": \(r.apps), "
            + "\"engineEventsPerSecond\": \(n(r.engineEventsPerSecond)), "
            + "\"bareHeapEventsPerSecond\": \(n(r.bareHeapEventsPerSecond)), "
            + "\"ratio\": \(Double(Int(r.ratio * 1000)) / 1000), "
            + "\"traceEventsPerSecond\": \(n(Double(r.traceEvents) / r.engineSeconds)), "
            + "\"deliveriesPerSecond\": \(n(Double(r.deliveries) / r.engineSeconds)), "
            + "\"engineHeapShare\": \(Double(Int(r.heapShare * 1000)) / 1000), "
            + "\"rounds\": \(r.engineRounds.count), "
            + "\"engineRoundEventsPerSecond\": [\(r.engineRounds.map { n(Double(r.events) / $0) }.joined(separator: ", "))], "
            + "\"bareHeapRoundEventsPerSecond\": [\(r.bareHeapRounds.map { n(Double(r.events) / $0) }.joined(separator: ", "))]}"
    }

    @Test("bgx bench --scale --json is what the hand-written form gave")
    func scale() {
        let small = ScaleBenchmark.Measure(apps: 8, timelineEntries: 40, bytes: 12_345, traceEvents: 900,
                                           parseSeconds: 0.0123, checkSeconds: 0.002, runSeconds: 0.25)
        let large = ScaleBenchmark.Measure(apps: 64, timelineEntries: 320, bytes: 98_765, traceEvents: 7200,
                                           parseSeconds: 0.1, checkSeconds: 0.0175, runSeconds: 2.5)
        let r = ScaleBenchmark.Result(small: small, large: large)
        func m(_ x: ScaleBenchmark.Measure) -> String {
            "{\"apps\": \(x.apps), \"timelineEntries\": \(x.timelineEntries), \"bytes\": \(x.bytes), "
                + "\"traceEvents\": \(x.traceEvents), \"parseSeconds\": \(x.parseSeconds), "
                + "\"checkSeconds\": \(x.checkSeconds), \"runSeconds\": \(x.runSeconds)}"
        }
        let handWritten = "{\"small\": \(m(small)), \"large\": \(m(large)), \"ratio\": \(Double(Int(r.ratio * 100)) / 100), "
            + "\"nLogNRatio\": \(Double(Int(r.nLogNRatio * 100)) / 100), \"quadraticRatio\": \(r.quadraticRatio)}"
        #expect(r.json == handWritten)
    }
}

extension InlineJSONTests {
    @Test("bgx run --json is what the hand-written form gave")
    func runJSON() throws {
        for name in ["Scenarios/spec2-task-never-ended.yaml", "docs/examples/podcasts.yaml"] {
            let path = repositoryRoot.appendingPathComponent(name).path
            let printed = try CommandLineTests().bgx(["run", path, "--json"]).stdout
            let run = try ScenarioRun(try ScenarioParser.parse(contentsOf: path))
            run.run()
            let summaries = run.device.summaries().map(HandWrittenJSON.summary).joined(separator: ", ")
            let expectations = run.results.map { r -> String in
                var m = ""
                TraceRenderer.appendJSONString(r.message, to: &m)
                return "{\"passed\": \(r.passed), \"line\": \(r.expectation.location.line), \"message\": \(m)}"
            }.joined(separator: ", ")
            let handWritten = "{\"apps\": [\(summaries)], \"expectations\": [\(expectations)], \"passed\": \(run.passed)}"
            #expect(printed == handWritten + "\n", "\(name)")
            #expect(!run.results.isEmpty, "\(name) has expectations to show")
        }
    }
}
