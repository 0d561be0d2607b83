import BGXCore
import Foundation
import Histogram

/// What a fleet run (or a shard of one) found: every figure is a count or a
/// histogram of counts, so two results of the same fleet merge by adding —
/// associative, commutative and lossless — whichever machine ran them.
public struct FleetResult: Sendable, Equatable {
    /// The scenario file's name, the fleet's seed, days and size: what makes two results parts of one fleet.
    public var scenario: String
    public var fleetSeed: UInt64
    public var days: Int
    public var fleetDevices: Int
    /// The devices this result covers, as half-open ranges `[from, to)`, sorted and joined.
    public var devices: [[Int]]
    /// Arrivals at the backend per minute of the day (UTC), by app and cause.
    public var arrivals: [String: [String: [Int]]] = [:]
    /// Delay distributions in milliseconds, by name.
    public var delays: [String: Histogram<UInt64>] = [:]
    /// Refusals, holds, drops and kills: category → app → reason → count.
    public var reasons: [String: [String: [String: Int]]] = [:]
    /// Plain totals (pushes sent, uses with no refresh before them …).
    public var counts: [String: Int] = [:]
    /// The sampled population: property → value → devices (or device-days).
    public var population: [String: [String: Int]] = [:]

    public static let causes = ["userLaunch", "refresh", "processing", "fetch", "silentPush", "transfer"]
    public static let delayNames = ["submitToRun", "pushToWake", "pushToDrop", "stalenessAtUse"]
    public static let minutesPerDay = 1440

    public init(scenario: String, fleetSeed: UInt64, days: Int, fleetDevices: Int, devices: [[Int]]) {
        self.scenario = scenario
        self.fleetSeed = fleetSeed
        self.days = days
        self.fleetDevices = fleetDevices
        self.devices = devices
    }

    /// Milliseconds from 1 ms to 400 days, three significant digits.
    public static func newHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 400 * 86_400_000, numberOfSignificantValueDigits: .three)
    }

    public mutating func record(_ delay: String, _ duration: Nanoseconds) {
        let ms = UInt64(max(0, min(duration / 1_000_000, 400 * 86_400_000)))
        _ = delays[delay, default: Self.newHistogram()].record(ms)
    }

    public mutating func arrive(_ app: String, _ cause: String, minute: Int) {
        arrivals[app, default: [:]][cause, default: Array(repeating: 0, count: Self.minutesPerDay)][minute] += 1
    }

    public mutating func count(_ category: String, _ app: String, _ reason: String) {
        reasons[category, default: [:]][app, default: [:]][reason, default: 0] += 1
    }

    public mutating func tally(_ name: String, _ n: Int = 1) { counts[name, default: 0] += n }

    public mutating func sampled(_ property: String, _ value: String) {
        population[property, default: [:]][value, default: 0] += 1
    }

    public struct MergeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Adds another result of the same fleet, covering other devices.
    public mutating func merge(_ other: FleetResult) throws {
        guard scenario == other.scenario, fleetSeed == other.fleetSeed, days == other.days,
              fleetDevices == other.fleetDevices else {
            throw MergeError(description: "not the same fleet: \(scenario) seed \(fleetSeed), \(days) days, "
                             + "\(fleetDevices) devices vs \(other.scenario) seed \(other.fleetSeed), \(other.days) days, "
                             + "\(other.fleetDevices) devices")
        }
        devices = try Self.join(devices + other.devices)
        for (app, causes) in other.arrivals {
            for (cause, minutes) in causes {
                var mine = arrivals[app, default: [:]][cause, default: Array(repeating: 0, count: Self.minutesPerDay)]
                for m in 0..<Self.minutesPerDay { mine[m] += minutes[m] }
                arrivals[app]![cause] = mine
            }
        }
        for (name, h) in other.delays { delays[name, default: Self.newHistogram()].add(h) }
        for (category, apps) in other.reasons {
            for (app, reasons) in apps {
                for (reason, n) in reasons { self.reasons[category, default: [:]][app, default: [:]][reason, default: 0] += n }
            }
        }
        for (name, n) in other.counts { counts[name, default: 0] += n }
        for (property, values) in other.population {
            for (value, n) in values { population[property, default: [:]][value, default: 0] += n }
        }
    }

    /// Device ranges sorted and joined; overlapping ranges mean a device counted twice.
    static func join(_ ranges: [[Int]]) throws -> [[Int]] {
        var out: [[Int]] = []
        for r in ranges.sorted(by: { ($0[0], $0[1]) < ($1[0], $1[1]) }) {
            if let last = out.last, r[0] < last[1] {
                throw MergeError(description: "devices \(r[0])..<\(r[1]) overlap \(last[0])..<\(last[1]): a shard is given twice")
            }
            if let last = out.last, r[0] == last[1] { out[out.count - 1][1] = r[1] } else { out.append(r) }
        }
        return out
    }

    public var deviceCount: Int { devices.reduce(0) { $0 + $1[1] - $1[0] } }

    public static func == (a: FleetResult, b: FleetResult) -> Bool { a.json == b.json }
}

// MARK: - The files

extension FleetResult {
    /// The on-disk form: histograms as their recorded buckets, `[value, count]`.
    struct File: Codable {
        var format = "bgx-fleet 1"
        var scenario: String
        var fleetSeed: UInt64
        var days: Int
        var fleetDevices: Int
        var devices: [[Int]]
        var arrivals: [String: [String: [Int]]]
        var delays: [String: [[UInt64]]]
        var reasons: [String: [String: [String: Int]]]
        var counts: [String: Int]
        var population: [String: [String: Int]]
    }

    /// `fleet.json`: the lossless form merges read. The same result gives the same bytes.
    public var json: String {
        var delayBuckets: [String: [[UInt64]]] = [:]
        for (name, h) in delays { delayBuckets[name] = h.recordedValues().map { [$0.value, $0.count] } }
        let file = File(scenario: scenario, fleetSeed: fleetSeed, days: days, fleetDevices: fleetDevices, devices: devices,
                        arrivals: arrivals, delays: delayBuckets, reasons: reasons, counts: counts, population: population)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(file), as: UTF8.self) + "\n"
    }

    /// Reads `fleet.json`; `path` names it in errors.
    public static func read(json data: Data, path: String) throws -> FleetResult {
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "not a bgx fleet result: \(error)")
        }
        guard file.format == "bgx-fleet 1" else {
            throw ScenarioError(SourceLocation(file: path, line: 1, column: 1), "unknown fleet result format '\(file.format)'")
        }
        var r = FleetResult(scenario: file.scenario, fleetSeed: file.fleetSeed, days: file.days,
                            fleetDevices: file.fleetDevices, devices: file.devices)
        r.arrivals = file.arrivals
        r.reasons = file.reasons
        r.counts = file.counts
        r.population = file.population
        for (name, buckets) in file.delays {
            var h = newHistogram()
            for b in buckets where b.count == 2 { _ = h.record(b[0], count: b[1]) }
            r.delays[name] = h
        }
        for (_, causes) in r.arrivals {
            for (_, minutes) in causes where minutes.count != minutesPerDay {
                throw ScenarioError(SourceLocation(file: path, line: 1, column: 1),
                                    "an arrivals array has \(minutes.count) minutes, not \(minutesPerDay)")
            }
        }
        _ = try join(r.devices)
        return r
    }

    /// The result as its files hold it: histograms rebuilt from their buckets,
    /// so a result read back and one just computed print the same figures.
    public var canonical: FleetResult {
        var r = self
        for (name, h) in delays {
            var c = Self.newHistogram()
            for v in h.recordedValues() { _ = c.record(v.value, count: v.count) }
            r.delays[name] = c
        }
        return r
    }

    /// `arrivals.csv`: one row per minute of the day, a column per app and cause.
    public var arrivalsCSV: String {
        let columns = arrivals.keys.sorted().flatMap { app in
            Self.causes.filter { arrivals[app]?[$0] != nil }.map { (app, $0) }
        }
        var out = "minute,time" + columns.map { ",\($0.0) \($0.1)" }.joined() + "\n"
        for m in 0..<Self.minutesPerDay {
            out += "\(m),\(Self.clock(m))"
            for (app, cause) in columns { out += ",\(arrivals[app]![cause]![m])" }
            out += "\n"
        }
        return out
    }

    static func clock(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// `delays.csv`: each distribution's count and percentiles, in seconds.
    public var delaysCSV: String {
        var out = "delay,count,p50,p90,p99,max\n"
        for name in Self.delayNames {
            guard let h = canonical.delays[name], h.totalCount > 0 else { out += "\(name),0,,,,\n"; continue }
            let p = [50.0, 90, 99].map { Self.seconds(h.valueAtPercentile($0)) }
            out += "\(name),\(h.totalCount),\(p.joined(separator: ",")),\(Self.seconds(h.max))\n"
        }
        return out
    }

    static func seconds(_ ms: UInt64) -> String {
        let s = ms / 1000, frac = ms % 1000
        return "\(s)." + String(repeating: "0", count: 3 - String(frac).count) + "\(frac)"
    }

    /// `reasons.csv`: category, app, reason, count.
    public var reasonsCSV: String {
        var out = "category,app,reason,count\n"
        for category in reasons.keys.sorted() {
            for app in reasons[category]!.keys.sorted() {
                for (reason, n) in reasons[category]![app]!.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
                    out += "\(category),\(Self.csv(app)),\(Self.csv(reason)),\(n)\n"
                }
            }
        }
        return out
    }

    /// `population.csv`: property, value, devices.
    public var populationCSV: String {
        var out = "property,value,devices\n"
        for property in population.keys.sorted() {
            for (value, n) in population[property]!.sorted(by: { $0.key < $1.key }) {
                out += "\(property),\(Self.csv(value)),\(n)\n"
            }
        }
        return out
    }

    static func csv(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public static let fileNames = ["fleet.json", "arrivals.csv", "delays.csv", "reasons.csv", "population.csv"]

    /// Writes the result's files into `directory` (made if missing).
    ///
    /// Never half-written where it looks whole: a new directory is written
    /// under a temporary name beside it and renamed into place, so it is
    /// absent or complete; into an existing directory (a Dask driver's output,
    /// holding its shards) each file is written under a temporary name,
    /// the old `fleet.json` removed, the others renamed in, and `fleet.json`
    /// — what every reader opens first — renamed in last. `afterEachFile`
    /// hears each file written (tests stop the writing there, as an
    /// interruption would); on an error the temporary files are removed.
    public func write(to directory: String, afterEachFile: ((String) throws -> Void)? = nil) throws {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: directory)
        let texts = [json, arrivalsCSV, delaysCSV, reasonsCSV, populationCSV]
        let tag = ".partial-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        var isDirectory: ObjCBool = false
        if !fm.fileExists(atPath: target.path, isDirectory: &isDirectory) {
            let parent = target.deletingLastPathComponent()
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
            let temporary = parent.appendingPathComponent("." + target.lastPathComponent + tag)
            do {
                try fm.createDirectory(at: temporary, withIntermediateDirectories: false)
                for (name, text) in zip(Self.fileNames, texts) {
                    try Data(text.utf8).write(to: temporary.appendingPathComponent(name))
                    try afterEachFile?(name)
                }
                try fm.moveItem(at: temporary, to: target)
            } catch {
                try? fm.removeItem(at: temporary)
                throw error
            }
            return
        }
        guard isDirectory.boolValue else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: target.path])
        }
        let temporaries = Self.fileNames.map { target.appendingPathComponent("." + $0 + tag) }
        do {
            for (name, (text, temporary)) in zip(Self.fileNames, zip(texts, temporaries)) {
                try Data(text.utf8).write(to: temporary)
                try afterEachFile?(name)
            }
        } catch {
            for t in temporaries { try? fm.removeItem(at: t) }
            throw error
        }
        // fleet.json is the first name: gone first, back last.
        let order = Array(zip(Self.fileNames, temporaries).dropFirst()) + [(Self.fileNames[0], temporaries[0])]
        _ = unlink(target.appendingPathComponent(Self.fileNames[0]).path)
        for (name, temporary) in order {
            guard rename(temporary.path, target.appendingPathComponent(name).path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.appendingPathComponent(name).path])
            }
        }
    }

    /// Reads `DIR/fleet.json`.
    public static func read(directory: String) throws -> FleetResult {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("fleet.json").path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(SourceLocation(file: path, line: 0, column: 0), "no such file (is \(directory) a bgx fleet output?)")
        }
        return try read(json: data, path: path)
    }
}
