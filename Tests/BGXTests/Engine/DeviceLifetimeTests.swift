import BGXCore
@testable import BGXSimulation
import Testing

/// A device is freed when its run is dropped: a fleet runs many devices in
/// one process, and a cycle (a process's timers holding the process, the
/// process holding its device) would keep every one alive.
@Suite struct DeviceLifetimeTests {
    /// The demo week (apps with pending timers, tasks, pushes and sessions
    /// when it ends) leaves nothing holding the device once the run is gone.
    @Test func aDeviceIsFreedAfterItsRun() throws {
        let scenario = try ScenarioParser(file: Demo.file).parse(Demo.scenario)
        weak var device: SimulatedDevice?
        weak var process: AppRuntime?
        do {
            let run = try ScenarioRun(scenario, keepsTrace: false)
            device = run.device
            // Stopped where an app's process has a job pending (a timer whose closure holds the process).
            var t: Int64 = 0
            while process == nil && t < scenario.duration {
                t += Time.minutes(1)
                run.run(until: t)
                process = run.device.engine.appIDs.lazy.compactMap { run.device.process(of: $0) }
                    .first { !$0.timers.isEmpty }
            }
            #expect(process != nil)
        }
        // Compared first: a leaked process must not be described (its device is gone).
        let processFreed = process == nil, deviceFreed = device == nil
        #expect(processFreed, "a process outlived its run")
        #expect(deviceFreed, "the device outlived its run")
    }
}
