import BGXCore

extension Benchmark {
    /// `bgx bench --json` (docs/performance.md): the engine's measure, then
    /// the demo device's, in one object.
    struct JSON: Encodable {
        let engine: Result.JSON
        let deviceDaysPerSecond: Int
        let deviceDays: Double
        let deviceDayTraceEvents: Int
        let schedulerEvaluationsPerWeek: Int
        let deviceDaysRoundsPerSecond: [Int]

        enum CodingKeys: String, CodingKey {
            case deviceDaysPerSecond, deviceDays, deviceDayTraceEvents, schedulerEvaluationsPerWeek,
                 deviceDaysRoundsPerSecond
        }

        /// The engine's keys first, the device's after them, side by side in one object.
        func encode(to encoder: Encoder) throws {
            try engine.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(deviceDaysPerSecond, forKey: .deviceDaysPerSecond)
            try c.encode(deviceDays, forKey: .deviceDays)
            try c.encode(deviceDayTraceEvents, forKey: .deviceDayTraceEvents)
            try c.encode(schedulerEvaluationsPerWeek, forKey: .schedulerEvaluationsPerWeek)
            try c.encode(deviceDaysRoundsPerSecond, forKey: .deviceDaysRoundsPerSecond)
        }
    }

    public static func json(_ result: Result, deviceDays days: DeviceDays) -> String {
        let json = JSON(engine: result.jsonValue, deviceDaysPerSecond: Int(days.perSecond.rounded()), deviceDays: days.days,
                        deviceDayTraceEvents: days.traceEvents, schedulerEvaluationsPerWeek: days.evaluationsPerRun,
                        deviceDaysRoundsPerSecond: days.rounds.map { Int((days.days / $0).rounded()) })
        // Ints, Doubles and arrays of them: nothing that fails to encode.
        return (try? InlineJSONEncoder().encode(json)) ?? "{}"
    }
}
