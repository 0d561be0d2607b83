import Foundation

/// What a replay did, beside what the fleet simulated: per cause the
/// fleet's arrivals in the window, the requests planned from them (scaled),
/// sent and sent late, the server's errors and response-time percentiles
/// (as Locust measured them, in milliseconds), and per minute the same
/// counts. Read from the locustfile's `tally.json`.
public struct LoadTestReport: Sendable {
    public var schedule: LoadTestSchedule
    public var causes: [String: Cause] = [:]
    /// The epoch second the replay's first stage began.
    public var origin: Int

    public struct Cause: Sendable, Equatable {
        public var sent: [Int]
        public var late: [Int]
        public var latestSeconds: Double
        public var responses: Int
        public var p50: Double?, p90: Double?, p99: Double?, max: Double?
        public var errors: [String: Int]
        public var errorCount: Int { errors.values.reduce(0, +) }
    }

    public struct Problem: Error, CustomStringConvertible { public var description: String }

    public init(_ schedule: LoadTestSchedule, tally data: Data) throws {
        self.schedule = schedule
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["format"] as? String == "bgx-loadtest-tally 1",
              let origin = (object["origin"] as? NSNumber)?.intValue,
              let causes = object["causes"] as? [String: [String: Any]] else {
            throw Problem(description: "the replay's tally.json is not one the locustfile writes (did the replay start?)")
        }
        self.origin = origin
        for cause in schedule.causes {
            guard let c = causes[cause], let sent = c["sent"] as? [Int], let late = c["late"] as? [Int],
                  sent.count == schedule.minutes.count, late.count == sent.count else {
                throw Problem(description: "the replay's tally.json has no counts for \(cause)")
            }
            func number(_ key: String) -> Double? { (c[key] as? NSNumber)?.doubleValue }
            self.causes[cause] = Cause(sent: sent, late: late, latestSeconds: number("latestSeconds") ?? 0,
                                       responses: (c["responses"] as? Int) ?? 0, p50: number("p50"), p90: number("p90"),
                                       p99: number("p99"), max: number("max"), errors: (c["errors"] as? [String: Int]) ?? [:])
        }
    }

    public var errorCount: Int { causes.values.reduce(0) { $0 + $1.errorCount } }
    public var lateCount: Int { causes.values.reduce(0) { $0 + $1.late.reduce(0, +) } }

    var window: String {
        let first = schedule.minutes.first ?? 0, end = first + schedule.minutes.count
        return FleetResult.clock(first) + "–" + (end == FleetResult.minutesPerDay ? "24:00" : FleetResult.clock(end % FleetResult.minutesPerDay))
    }

    static func milliseconds(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
    static func seconds(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%g", v) }

    /// The text table `bgx fleet loadtest` prints.
    public var text: String {
        let s = schedule
        var out = "\(s.app), \(window) of the fleet's average day (\(s.deviceDays) device-days), "
            + "scaled to \(s.devices) devices; a minute replayed in \(Self.seconds(s.stageSeconds)) s "
            + "(--compress \(Self.seconds(s.compress))), \(s.users) users\n"
        let header = ["cause", "fleet", "planned", "sent", "late", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms", "busiest minute"]
        var rows = [header]
        for cause in s.causes {
            let c = causes[cause]!, planned = s.planned[cause]!
            let busiest = planned.indices.max { (planned[$0], -$0) < (planned[$1], -$1) } ?? 0
            rows.append([cause, "\(s.simulated[cause]!.reduce(0, +))", "\(planned.reduce(0, +))", "\(c.sent.reduce(0, +))",
                         "\(c.late.reduce(0, +))", "\(c.errorCount)", Self.milliseconds(c.p50), Self.milliseconds(c.p90),
                         Self.milliseconds(c.p99), Self.milliseconds(c.max),
                         "\(FleetResult.clock(s.minutes[busiest])) \(planned[busiest])"])
        }
        let widths = header.indices.map { i in rows.map { $0[i].count }.max()! }
        for row in rows {
            out += row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i == 0 || i == header.count - 1 ? cell + pad : pad + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        out += "fleet: the fleet's arrivals in the window (all its devices and days); planned: scaled to \(s.devices) devices' day\n"
        for cause in s.causes {
            for (message, n) in causes[cause]!.errors.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }).prefix(3) {
                out += "errors: \(cause): \(n)× \(message)\n"
            }
        }
        if lateCount > 0 {
            let latest = causes.values.map(\.latestSeconds).max() ?? 0
            out += "late: \(lateCount) requests were sent later than their moment (the latest by \(String(format: "%.2f", latest)) s): "
                + "every user was busy; raise --users, or the load tool's machine is the limit\n"
        }
        if !s.unreplayed.isEmpty {
            out += "not replayed (no request in loadtest:): \(s.unreplayed.joined(separator: ", "))\n"
        }
        return out
    }

    /// `causes.csv`: a row per cause.
    public var causesCSV: String {
        var out = "cause,fleet,planned,sent,late,errors,responses,p50_ms,p90_ms,p99_ms,max_ms\n"
        for cause in schedule.causes {
            let c = causes[cause]!
            let cells = ["\(schedule.simulated[cause]!.reduce(0, +))", "\(schedule.planned[cause]!.reduce(0, +))",
                         "\(c.sent.reduce(0, +))", "\(c.late.reduce(0, +))", "\(c.errorCount)", "\(c.responses)"]
                + [c.p50, c.p90, c.p99, c.max].map { $0.map { String(format: "%.3f", $0) } ?? "" }
            out += cause + "," + cells.joined(separator: ",") + "\n"
        }
        return out
    }

    /// `minutes.csv`: a row per minute replayed: when its stage began, and per cause fleet, planned, sent.
    public var minutesCSV: String {
        var out = "minute,time,stage_start_epoch"
        for cause in schedule.causes { out += ",\(cause) fleet,\(cause) planned,\(cause) sent" }
        out += "\n"
        for (i, m) in schedule.minutes.enumerated() {
            out += "\(m),\(FleetResult.clock(m)),\(String(format: "%.3f", Double(origin) + Double(i) * schedule.stageSeconds))"
            for cause in schedule.causes {
                out += ",\(schedule.simulated[cause]![i]),\(schedule.planned[cause]![i]),\(causes[cause]!.sent[i])"
            }
            out += "\n"
        }
        return out
    }

    /// `loadtest.json`: everything above, for tools.
    public var json: String {
        var perCause: [String: Any] = [:]
        for cause in schedule.causes {
            let c = causes[cause]!
            var o: [String: Any] = [
                "fleet": schedule.simulated[cause]!, "planned": schedule.planned[cause]!, "sent": c.sent, "late": c.late,
                "responses": c.responses, "errors": c.errors, "request": [
                    "method": schedule.requests[cause]!.method, "path": schedule.requests[cause]!.path,
                    "headers": schedule.requests[cause]!.headers, "bodyBytes": Int(schedule.requests[cause]!.bodyBytes),
                ] as [String: Any],
            ]
            for (key, v) in [("p50Ms", c.p50), ("p90Ms", c.p90), ("p99Ms", c.p99), ("maxMs", c.max)] { o[key] = v.map { $0 as Any } ?? NSNull() }
            perCause[cause] = o
        }
        let object: [String: Any] = [
            "format": "bgx-loadtest 1", "app": schedule.app, "minutes": schedule.minutes, "compress": schedule.compress,
            "stageSeconds": schedule.stageSeconds, "devices": schedule.devices, "deviceDays": schedule.deviceDays,
            "users": schedule.users, "origin": origin, "causes": perCause, "notReplayed": schedule.unreplayed,
        ]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
