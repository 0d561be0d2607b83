@testable import BGXCore
@testable import BGXSimulation
import BGXTestKit
import Foundation
import HeapModule
import Testing

/// The live daemon restarts from a snapshot of the engine and replays only
/// the journal after it. A snapshot is worth having only if the engine made
/// from it is the engine it was taken from: every later input gives the same
/// lines, the same decisions, the same explanations.
@Suite("Engine snapshots (an engine decoded from its encoding goes on as the original)")
struct EngineSnapshotTests {
    static func restored(_ engine: Engine) throws -> Engine {
        try JSONDecoder().decode(Engine.self, from: JSONEncoder().encode(engine))
    }

    @Test("the live soak's input mix: restored four times along the way, the engine says the same lines as the one never stored")
    func soakMixGoesOnTheSame() throws {
        var original = BoundedStateTests.Soak()
        original.inputs(2_000)
        var restored = original
        var compared = 0
        for _ in 0..<4 {
            restored.host.engine = try Self.restored(restored.host.engine)
            var originalLines: [String] = [], restoredLines: [String] = []
            original.inputs(1_500) { engine in originalLines += engine.trace.map { engine.traceRenderer.jsonLine($0) } }
            restored.inputs(1_500) { engine in restoredLines += engine.trace.map { engine.traceRenderer.jsonLine($0) } }
            #expect(originalLines == restoredLines)
            compared += originalLines.count
        }
        #expect(compared > 5_000)
        for app in original.apps where BoundedStateTests.Soak.behaviours[Int(app.index) % 4] == "refresh" {
            #expect(original.host.engine.explainTask(app: app, identifier: "com.example.refresh").text
                    == restored.host.engine.explainTask(app: app, identifier: "com.example.refresh").text)
        }
        #expect(original.host.engine.queuedEventCount == restored.host.engine.queuedEventCount)
    }

    @Test("every scenario, restored at a quarter, half and three quarters of its run, ends with the same trace",
          arguments: [Demo.file] + scenarioFiles)
    func scenarioGoesOnTheSame(_ path: String) throws {
        let scenario = path == Demo.file ? try ScenarioParser(file: Demo.file).parse(Demo.scenario)
                                         : try ScenarioParser.parse(contentsOf: path)
        let kept = try ScenarioRun(scenario), stored = try ScenarioRun(scenario)
        for quarter in 1...3 {
            let moment = scenario.duration / 4 * Nanoseconds(quarter)
            kept.run(until: moment)
            stored.run(until: moment)
            let engine = try Self.restored(stored.device.engine)
            stored.device.withEngine { $0 = engine }
        }
        kept.run()
        stored.run()
        #expect(kept.device.traceLines == stored.device.traceLines)
        #expect(kept.results.map(\.passed) == stored.results.map(\.passed))
    }

    /// Compared by key alone: which of two equal keys comes out first depends on the heap's layout.
    struct Keyed: Comparable, Codable {
        var key: Int
        var payload: Int
        static func < (a: Keyed, b: Keyed) -> Bool { a.key < b.key }
        static func == (a: Keyed, b: Keyed) -> Bool { a.key == b.key }
    }

    @Test("a heap decoded from its array keeps its layout, so equal keys come out in the same order")
    func heapKeepsItsLayout() throws {
        var random = SeededRandom(seed: 3)
        var heap = Heap<Keyed>()
        for k in 0..<500 { heap.insert(Keyed(key: Int(random.next() % 20), payload: k)) }
        for _ in 0..<100 { _ = heap.popMin() }
        var decoded = try JSONDecoder().decode(Heap<Keyed>.self, from: JSONEncoder().encode(heap))
        var order: [Int] = [], decodedOrder: [Int] = []
        while let e = heap.popMin() { order.append(e.payload) }
        while let e = decoded.popMin() { decodedOrder.append(e.payload) }
        #expect(order.count == 400)
        #expect(order == decodedOrder)
    }
}
