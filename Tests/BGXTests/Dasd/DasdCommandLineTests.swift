import Foundation
import Testing

/// `bgx dasd-log` and `bgx explain --format dasd`, run against the built executable.
@Suite("bgx dasd-log and explain --format dasd")
struct DasdCommandLineTests {
    let cli = CommandLineTests()
    let sample = calibrationFolder + "/sample/dasd.log"
    let day = calibrationFolder + "/sample/day.yaml"

    @Test("dasd-log lists each decision and counts the malformed one it skipped")
    func lists() throws {
        let r = try cli.bgx(["dasd-log", sample, "--app", "com.example.feed"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("5 dasd decisions, 5 about com.example.feed; 1 malformed or cut off, skipped"))
        #expect(r.stdout.contains("09:12:48  bgProcessing-com.example.feed.cleanup  Must Not Proceed — CPUUsagePolicy, DeviceActivityPolicy"))
    }

    @Test("dasd-log with a scenario lines each decision up with bgx's, policy by policy")
    func compares() throws {
        let r = try cli.bgx(["dasd-log", sample, "--scenario", day])
        #expect(r.status == 0)
        #expect(r.stdout.contains("  MemoryPressurePolicy     device: Must Not Proceed 0.00 (w 5)    bgx: Must Not Proceed 0.00 (w 5)   agrees"))
        #expect(r.stdout.contains("bgx agrees on 5 of 5 final decisions and 5 of 5 deciding policies."))
    }

    @Test("dasd-log says where bgx differs: the camera off in the scenario, on in the log")
    func differs() throws {
        let scenario = try String(contentsOfFile: day, encoding: .utf8).replacingOccurrences(of: "cameraActive: true", with: "cameraActive: false")
        let path = try cli.temporaryFile(scenario)
        let r = try cli.bgx(["dasd-log", sample, "--scenario", path])
        #expect(r.stdout.contains("MemoryPressurePolicy     device: Must Not Proceed 0.00 (w 5)    bgx: Can Proceed 1.00 (w 5)   DIFFERS"))
        #expect(r.stdout.contains("bgx agrees on 4 of 5 final decisions and 4 of 5 deciding policies."))
    }

    @Test("dasd-log: a file it cannot read, or a bad scenario, is bad input — error on stderr, exit 2")
    func badInput() throws {
        let r = try cli.bgx(["dasd-log", "/nonexistent/dasd.log"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("error: /nonexistent/dasd.log: cannot read the file"))
        let broken = try cli.temporaryFile("apps: [\n")
        let s = try cli.bgx(["dasd-log", sample, "--scenario", broken])
        #expect(s.status == 2)
        #expect(s.stderr.hasPrefix("error: \(broken):"))
    }

    @Test("explain --format dasd prints the moment's decisions in dasd's layout; another format is refused")
    func explainDasd() throws {
        let r = try cli.bgx(["explain", day, "--app", "com.example.feed", "--at", "09:12:48", "--format", "dasd"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("bgProcessing-com.example.feed.cleanup:"))
        #expect(r.stdout.contains("{name: CPUUsagePolicy, policyWeight: 5.000, response: {Decision: Must Not Proceed, Score: 0.00"))
        #expect(r.stdout.contains("# a background push arriving now:\ncom.apple.pushLaunch.com.example.feed:"))
        let bad = try cli.bgx(["explain", day, "--app", "com.example.feed", "--format", "xml"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--format must be 'dasd'"))
    }
}
