@testable import BGXLive
import BGXCore
import Foundation
import Glibc
import Testing

/// The CPU monitor and jetsam fed from what the kernel says a real process
/// uses, and PSI memory pressure.
@Suite("live resources", .serialized)
struct LiveResourceTests {
    @Test("the CPU monitor from real CPU time: a background app spinning four threads is killed for CPU (30 % of 60 s)")
    func cpuLimitFromRealCPU() throws {
        // 30 %, not iOS's 80 %: four spinning threads get less than 80 % of a core on a machine busy with builds.
        let host = try LiveHost(timeScale: 10, extra: ["--cpu-limit", "30"])
        try host.install("com.example.burner", behaviour: "burn", modes: ["audio"])
        try host.ctl("launch", "com.example.burner")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        let background = try host.wait(for: ["kind": "state", "to": "background"])
        let kill = try host.wait(for: ["kind": "terminate", "reason": "cpuLimit"], seconds: 60)
        // 18 s of CPU in a 60 s window cannot be reached sooner than 18 s / 4 threads after going home.
        let after = try #require(kill["t"] as? Double) - #require(background["t"] as? Double)
        #expect(after >= 4.5, "killed \(after) s after going home")
        #expect("\(kill["detail"] ?? "")".contains("exceeds 30 %"), "\(kill)")
        try host.wait(for: ["kind": "process.exit", "how": "signal 9"])
        #expect(host.auditLog().contains("\"reason\": \"cpuLimit\""))
    }

    @Test("jetsam from real resident size, sampled: an app that grows to 200 MB without a word to the daemon is killed on a 256 MB device")
    func silentGrowthIsSeen() throws {
        let host = try LiveHost(extra: ["--memory", "256MB"])
        try host.install("com.example.silent", behaviour: "silent-hog", modes: ["audio"])
        try host.ctl("launch", "com.example.silent")
        try host.wait(for: ["kind": "state", "to": "active"])
        try host.ctl("home")
        try host.wait(for: ["kind": "state", "to": "background"])
        let kill = try host.wait(for: ["kind": "terminate", "reason": "memoryPressure", "app": "com.example.silent"])
        // Sampled as it grows: killed once past the per-process limit (55 % of 256 MB), not necessarily at 200 MB.
        #expect((kill["footprintMB"] as? Double).map { $0 > 140 } ?? false, "\(kill)")
    }

    @Test("PSI: the daemon reads memory pressure where the kernel offers it and says so in status",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/pressure/memory"), "no PSI in this kernel"))
    func pressureInStatus() throws {
        let host = try LiveHost()
        try host.install("com.example.feed")
        try host.ctl("launch", "com.example.feed")
        try host.wait(for: ["kind": "state", "to": "active"])
        let status = try host.ctl("status")
        #expect(status.contains("memory pressure: "), "\(status)")
        #expect(status.contains("memory.pressure)") || status.contains("/proc/pressure/memory)"), "\(status)")
    }

    @Test("PSI levels are lmkd's: 7 % partial stall is a warning, 70 % complete stall is critical")
    func pressureLevels() throws {
        let calm = try #require(PressureStall(text: """
            some avg10=0.00 avg60=0.00 avg300=0.00 total=0
            full avg10=0.00 avg60=0.00 avg300=0.00 total=0
            """))
        #expect(calm.level == .normal)
        #expect(PressureStall(some: 7.5, full: 1).level == .warning)
        #expect(PressureStall(some: 90, full: 71).level == .critical)
        #expect(PressureStall(text: "some avg10=12.50 avg60=3.00 avg300=1.00 total=99\n") == PressureStall(some: 12.5, full: 0))
        #expect(PressureStall(text: "garbage") == nil)
    }

    @Test("real CPU time: a process's cgroup cpu.stat or /proc stat grows as it works")
    func cpuTimeReads() throws {
        let before = try #require(ProcessResources.cpuTime(pid: getpid(), cgroup: nil))
        // Works until the reading moves (/proc counts in clock ticks, and a busy machine may give this
        // thread none for a while), bounded: a reading that never grows fails.
        var x: UInt64 = 1
        var after = before
        let end = MonotonicClock.now() + 20_000_000_000
        while after <= before, MonotonicClock.now() < end {
            for _ in 0..<1_000_000 { x = x &* 6364136223846793005 &+ 1 }
            after = try #require(ProcessResources.cpuTime(pid: getpid(), cgroup: nil))
        }
        #expect(x != 0)
        #expect(after > before)
        #expect(try #require(ProcessResources.residentBytes(pid: getpid(), cgroup: nil)) > 1_000_000)
    }
}
