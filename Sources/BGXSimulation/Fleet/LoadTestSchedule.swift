import Foundation

/// A fleet's arrival curve turned into a replay: the average day's arrivals
/// per minute of one app, by cause, scaled from the fleet's device-days to
/// `devices` devices' day and cut to a window of the day; each minute of the
/// day lasts `60 / compress` seconds of the replay (a stage). Each stage's
/// arrivals are whole requests: the scaled curve is rounded on its running
/// total, so no minute is off by a whole request and the window's total is
/// the scaled total rounded.
public struct LoadTestSchedule: Sendable {
    public var app: String
    /// Minutes of the day replayed, in order (a window may run past midnight).
    public var minutes: [Int]
    /// Cause → the scaled curve (fractional) and the whole requests per stage.
    public var scaled: [String: [Double]] = [:]
    public var planned: [String: [Int]] = [:]
    /// Cause → the fleet's own arrivals in each minute, all its days and devices.
    public var simulated: [String: [Int]] = [:]
    public var requests: [String: LoadTest.Request]
    public var compress: Double
    public var devices: Int
    /// The fleet's device-days: what one simulated arrival is divided by.
    public var deviceDays: Int
    /// Causes with arrivals in the fleet but no request in `loadtest:`: not replayed.
    public var unreplayed: [String] = []
    /// Concurrent users: how many requests may be in flight at once (not the load).
    public var users: Int

    public var stageSeconds: Double { 60 / compress }
    public var causes: [String] { FleetResult.causes.filter { planned[$0] != nil } }

    public struct Problem: Error, CustomStringConvertible { public var description: String }

    /// `window` in minutes of the day, `[from, to)`, `to` up to 2880 for one past midnight.
    public init(_ result: FleetResult, _ loadTest: LoadTest, devices: Int?, compress: Double,
                window: (from: Int, to: Int) = (0, 1440), users: Int? = nil) throws {
        let app: String
        if let named = loadTest.app { app = named } else {
            let apps = result.arrivals.keys.sorted()
            guard apps.count <= 1 else {
                throw Problem(description: "the fleet result has arrivals of \(apps.count) apps (\(apps.joined(separator: ", "))); name one in loadtest: app:")
            }
            guard let only = apps.first else { throw Problem(description: "the fleet result has no arrivals at all") }
            app = only
        }
        guard let curves = result.arrivals[app] else {
            throw Problem(description: "the fleet result has no arrivals of \(app) (it has: \(result.arrivals.keys.sorted().joined(separator: ", ")))")
        }
        self.app = app
        self.requests = loadTest.requests
        self.compress = compress
        self.deviceDays = result.deviceCount * result.days
        self.devices = devices ?? result.deviceCount
        guard deviceDays > 0 else { throw Problem(description: "the fleet result covers no devices") }
        minutes = (window.from..<window.to).map { $0 % FleetResult.minutesPerDay }
        let factor = Double(self.devices) / Double(deviceDays)
        for cause in FleetResult.causes {
            guard let curve = curves[cause] else { continue }
            guard loadTest.requests[cause] != nil else {
                if curve.contains(where: { $0 > 0 }) { unreplayed.append(cause) }
                continue
            }
            let own = minutes.map { curve[$0] }
            let exact = own.map { Double($0) * factor }
            var whole: [Int] = []
            var running = 0.0, sent = 0
            for x in exact {
                running += x
                let upTo = Int((running + 0.5).rounded(.down))
                whole.append(upTo - sent)
                sent = upTo
            }
            simulated[cause] = own
            scaled[cause] = exact
            planned[cause] = whole
        }
        guard !planned.isEmpty else {
            throw Problem(description: "none of the causes loadtest: describes (\(loadTest.requests.keys.sorted().joined(separator: ", "))) has arrivals of \(app) in the fleet result")
        }
        // Enough users for the busiest stage's requests to take a second each in flight.
        let wholes = Array(planned.values)
        let busiest = (0..<minutes.count).map { i in wholes.reduce(0) { $0 + $1[i] } }.max() ?? 0
        let perSecond = Double(busiest) / (60 / compress)
        self.users = users ?? min(2000, max(10, Int(perSecond.rounded(.up))))
    }

    public var totalPlanned: Int { planned.values.reduce(0) { $0 + $1.reduce(0, +) } }

    static func clock(_ minute: Int) -> String { FleetResult.clock(minute) }

    /// What the locustfile reads: the stages and each cause's request.
    public var json: String {
        var requestsObject: [String: Any] = [:]
        for (cause, r) in requests where planned[cause] != nil {
            requestsObject[cause] = ["method": r.method, "path": r.path, "headers": r.headers, "bodyBytes": Int(r.bodyBytes)] as [String: Any]
        }
        let stages: [[String: Any]] = minutes.enumerated().map { i, m in
            var arrivals: [String: Int] = [:]
            for (cause, counts) in planned where counts[i] > 0 { arrivals[cause] = counts[i] }
            return ["minute": m, "clock": Self.clock(m), "arrivals": arrivals]
        }
        let object: [String: Any] = [
            "format": "bgx-loadtest-schedule 1", "app": app, "stageSeconds": stageSeconds, "users": users,
            "causes": causes, "requests": requestsObject, "stages": stages,
        ]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension LoadTestSchedule {
    /// `07:00-08:00` as minutes of the day `[from, to)`; a window may run past midnight.
    public static func window(_ text: String) -> (from: Int, to: Int)? {
        guard let w = ScenarioParser.dayWindow(text) else { return nil }
        let minute: Int64 = 60_000_000_000
        guard w.from % minute == 0, w.to % minute == 0 else { return nil }
        return (Int(w.from / minute), Int(w.to / minute))
    }
}
