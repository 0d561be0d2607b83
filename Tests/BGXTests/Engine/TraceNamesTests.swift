import BGXCore
import BGXSimulation
import Testing

/// A host that writes the trace as it runs (the live daemon) keeps one set of
/// names and brings it up to date before each write, instead of putting
/// every text so far into words each time.
@Suite("Trace names brought up to date as a run goes")
struct TraceNamesTests {
    @Test("names updated after each stretch of the demo render every line as names made at the end do")
    func updatedNamesRenderAsFreshOnes() throws {
        let run = try ScenarioRun(try ScenarioParser(file: Demo.file).parse(Demo.scenario))
        var names = TraceNames(apps: [], notifications: [], texts: [])
        var written: [String] = []
        var decisionsSeen = 0
        let stretch = Time.seconds(3 * 3600)
        var until: Nanoseconds = 0
        while until < run.scenario.duration {
            until += stretch
            run.run(until: until)
            _ = run.device.traceLines   // writes the engine's new events into the device's trace
            let before = names.texts.count
            run.device.engine.updateTraceNames(&names)
            if names.texts.count > before { decisionsSeen += 1 }
            let renderer = TraceRenderer(names: names)
            written += run.device.trace[written.count...].map(renderer.jsonLine)
        }
        let fresh = run.device.traceLines
        #expect(fresh.count > 500)
        // Texts were added in many stretches, so the update did more than make them once.
        #expect(decisionsSeen > 5)
        #expect(written == fresh)
        let made = run.device.engine.traceNames
        #expect(names.texts == made.texts && names.apps == made.apps && names.notifications == made.notifications)
        #expect(names.scores.count == made.scores.count && !made.scores.isEmpty)
    }
}
