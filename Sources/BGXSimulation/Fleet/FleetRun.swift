import BGXCore
import Foundation

/// `bgx fleet`: runs devices of a fleet — all, or shard I of K — each on its
/// own simulated device with the engine's full rules, and adds what each
/// did into one result. Shard I of K runs devices [N·I/K, N·(I+1)/K).
public struct FleetRun {
    public let sampler: DeviceSampler
    public let devices: Int
    public let shard: (index: Int, count: Int)

    public init(_ scenario: Scenario, devices: Int, days: Int? = nil, shard: (index: Int, count: Int) = (0, 1)) throws {
        if let first = ScenarioRun.unsupportedFeatures(scenario).first { throw first }
        sampler = try DeviceSampler(scenario, days: days)
        self.devices = devices
        self.shard = shard
    }

    public var range: Range<Int> {
        (devices * shard.index / shard.count)..<(devices * (shard.index + 1) / shard.count)
    }

    /// Runs the shard's devices; `progress` hears after each how many are done.
    public func run(progress: ((Int) -> Void)? = nil) throws -> FleetResult {
        let name = URL(fileURLWithPath: sampler.scenario.file).lastPathComponent
        let sum = Sum(FleetResult(scenario: name, fleetSeed: sampler.fleetSeed, days: sampler.days, fleetDevices: devices,
                                  devices: range.isEmpty ? [] : [[range.lowerBound, range.upperBound]]))
        for (done, i) in range.enumerated() {
            try runDevice(i, into: sum)
            progress?(done + 1)
        }
        return sum.result.canonical
    }

    /// The shard's result, added to as each device's trace goes by.
    final class Sum {
        var result: FleetResult
        init(_ result: FleetResult) { self.result = result }
    }

    func runDevice(_ i: Int, into sum: Sum) throws {
        let (scenario, person) = sampler.device(i)
        let run = try ScenarioRun(scenario, keepsTrace: false)
        run.device.keepsLedger = false   // no summary is read: the tally is the device's account
        var tally = DeviceTally(run: run, bundles: sampler.bundles)
        run.device.traceSink = { events in tally.fold(events, into: &sum.result) }
        run.run(until: scenario.duration)
        run.device.traceSink = nil
        tally.finish(into: &sum.result)
        Self.sample(person, bundles: sampler.bundles, into: &sum.result)
    }

    /// The sampled population's rows for one device.
    static func sample(_ p: DeviceSampler.Person, bundles: [String], into r: inout FleetResult) {
        func onOff(_ b: Bool) -> String { b ? "on" : "off" }
        r.sampled("devices", "all")
        r.sampled("memory", "\(p.memory >> 30)GB" + (p.memory % (1 << 30) == 0 ? "" : "+"))
        r.sampled("lowPowerMode", onOff(p.lowPowerMode))
        r.sampled("backgroundAppRefresh", onOff(!p.backgroundAppRefreshOff))
        r.sampled("forceQuit", p.forceQuits ? "after each use" : "never")
        r.sampled("chargesAtNight", p.chargesAtNight ? "yes" : "no")
        r.sampled("homeNetwork", p.homeWifi ? "wifi" : "cellular")
        r.sampled("wakeHour", FleetResult.clock(Int(p.wake / Time.hours(1)) * 60))
        r.sampled("bedtimeHour", FleetResult.clock(Int(p.bedtime / Time.hours(1)) % 24 * 60))
        r.sampled("otherApps", "\(p.otherApps)")
        for (b, n) in zip(bundles, p.usesPerDay) { r.sampled("usesPerDay \(b)", n < 10 ? "0\(n)" : "\(n)") }
        for n in p.dayNetworks { r.sampled("dayNetwork (device-days)", n.rawValue) }
    }
}
