import BGXCore
import Foundation

/// `bgx bench --scale`: parsing, checking and running a generated scenario
/// of 4 096 and 65 536 apps in one run, and how their times compare: n log n
/// would be about 21× for 16× the apps, n² 256×. A ratio from one run on
/// one machine, never a timed test.
public enum ScaleBenchmark {
    public struct Measure: Sendable, Encodable {
        public var apps: Int
        public var timelineEntries: Int
        public var bytes: Int
        public var traceEvents: Int
        public var parseSeconds: Double
        public var checkSeconds: Double
        public var runSeconds: Double
        public var totalSeconds: Double { parseSeconds + checkSeconds + runSeconds }
    }

    public struct Result: Sendable {
        public var small: Measure
        public var large: Measure
        public var ratio: Double { large.totalSeconds / small.totalSeconds }
        /// What n log n and n² growth would give for these sizes.
        public var nLogNRatio: Double {
            let a = Double(small.apps), b = Double(large.apps)
            return b * log2(b) / (a * log2(a))
        }
        public var quadraticRatio: Double { (Double(large.apps) / Double(small.apps)) * (Double(large.apps) / Double(small.apps)) }

        public var text: String {
            func s(_ d: Double) -> String { String(Double(Int((d * 1000).rounded())) / 1000) + " s" }
            func line(_ m: Measure) -> String {
                "\(m.apps) apps, \(m.timelineEntries) timeline entries (\(m.bytes / 1024) KB, \(m.traceEvents) trace events): "
                    + "parse \(s(m.parseSeconds)), check \(s(m.checkSeconds)), run \(s(m.runSeconds)), total \(s(m.totalSeconds))"
            }
            func r(_ d: Double) -> String { String(Double(Int((d * 10).rounded())) / 10) + "×" }
            return """
            scale: \(line(small))
            scale: \(line(large))
            scale: \(Int(Double(large.apps) / Double(small.apps)))× the apps took \(r(ratio)) the time (n log n: \(r(nLogNRatio)), n²: \(r(quadraticRatio)))
            """
        }

        /// `--json`: the two measures, and how their times compare.
        struct JSON: Encodable {
            let small, large: Measure
            let ratio, nLogNRatio, quadraticRatio: Double
        }

        public var json: String {
            let json = JSON(small: small, large: large, ratio: Double(Int(ratio * 100)) / 100,
                            nLogNRatio: Double(Int(nLogNRatio * 100)) / 100, quadraticRatio: quadraticRatio)
            // Ints and Doubles: nothing that fails to encode.
            return (try? InlineJSONEncoder().encode(json)) ?? "{}"
        }
    }

    /// A day of n apps: each registers and submits a refresh as it goes to
    /// the background (every eighth also a processing task that needs
    /// power), every fourth begins a background task; the person opens each
    /// once a day; the timeline launches and leaves each app once and locks,
    /// charges and unlocks the device overnight.
    public static func scenario(apps n: Int) -> String {
        var yaml = "start: 2026-01-05T00:00:00\nduration: 1d\ndevice: {charging: false}\napps:\n"
        yaml.reserveCapacity(n * 700)
        for i in 0..<n {
            let b = "com.example.app\(i)"
            yaml += "  - bundle: \(b)\n    backgroundModes: [fetch, processing]\n"
            yaml += "    permittedTaskIdentifiers: [\(b).refresh, \(b).index]\n    on:\n"
            yaml += "      didFinishLaunching: [{register: \(b).refresh}, {register: \(b).index}]\n"
            yaml += "      didEnterBackground:\n        - submit: {identifier: \(b).refresh, type: appRefresh, earliestBegin: 15m}\n"
            if i % 8 == 0 {
                yaml += "        - submit: {identifier: \(b).index, type: processing, requiresExternalPower: true}\n"
            }
            if i % 4 == 0 {
                yaml += "        - beginBackgroundTask: save\n        - wait: 5s\n        - endBackgroundTask: save\n"
            }
            yaml += "      task \(b).refresh: [{work: 1s}, {complete: true}]\n"
            yaml += "      task \(b).index: [{work: 30s}, {complete: true}]\n"
        }
        yaml += "usage:\n"
        for i in 0..<n {
            let minute = (i * 7) % (14 * 60)
            yaml += "  - {app: com.example.app\(i), daily: [\"\(pad(8 + minute / 60)):\(pad(minute % 60)) 2m\"]}\n"
        }
        yaml += "timeline:\n"
        for i in 0..<n {
            // Spread over 06:00–22:00, at most a few apps a second.
            let at = 6 * 3600 + (i * 57_600) / n
            yaml += "  - {at: \(at)s, user: launch com.example.app\(i)}\n  - {at: \(at + 1)s, user: home}\n"
        }
        yaml += "  - {at: \"23:00\", user: lock}\n  - {at: \"23:10\", device: {charging: true}}\n"
        yaml += "  - {at: \"23:59\", user: unlock}\n"
        return yaml
    }

    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    public static func measure(apps n: Int, measure: (() -> Void) -> Double) throws -> Measure {
        let text = scenario(apps: n)
        var parsed: Scenario?
        var error: Error?
        let parse = measure {
            do { parsed = try ScenarioParser(file: "scale-\(n).yaml").parse(text) } catch let e { error = e }
        }
        if let error { throw error }
        let scenario = parsed!
        var count = 0
        let check = measure { count = ScenarioCheck.findings(scenario).findings.count }
        _ = count
        var events = 0
        var runError: Error?
        let run = measure {
            do {
                let r = try ScenarioRun(scenario, keepsTrace: false)
                var traced = 0
                r.device.traceSink = { traced += $0.count }
                r.run()
                events = traced
            } catch let e { runError = e }
        }
        if let runError { throw runError }
        return Measure(apps: n, timelineEntries: scenario.timeline.count, bytes: text.utf8.count, traceEvents: events,
                       parseSeconds: parse, checkSeconds: check, runSeconds: run)
    }

    public static func run(small: Int = 4096, large: Int = 65_536, measure: (() -> Void) -> Double) throws -> Result {
        Result(small: try self.measure(apps: small, measure: measure), large: try self.measure(apps: large, measure: measure))
    }
}
