import BGXSimulation
import Foundation
import Testing
import Yams

/// `bgx fleet plan`: the same binary, one shard per batch task. Each plan's
/// shard command is run here as the batch system would run it (its index in
/// the environment), and the merged shards are the fleet run whole.
@Suite("bgx fleet plan: a Kubernetes Indexed Job and a Slurm job array")
struct FleetPlanTests {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fleet-plan-\(UUID().uuidString)")

    func prepare() throws -> (scenario: URL, plan: URL) {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let scenario = dir.appendingPathComponent("news.yaml")
        try fleetNewsScenario.write(to: scenario, atomically: true, encoding: .utf8)
        let plan = dir.appendingPathComponent("plan")
        let made = try CommandLineTests().bgx(["fleet", "plan", scenario.path, "--devices", "12", "--shards", "3",
                                              "--image", "registry.example/bgx:1", "--out", plan.path])
        #expect(made.status == 0, "\(made.stderr)")
        return (scenario, plan)
    }

    func expectMergedEqualsWhole(_ shards: URL, scenario: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: shards.path).sorted()
        #expect(names == ["0", "1", "2"])
        let merged = dir.appendingPathComponent("merged"), whole = dir.appendingPathComponent("whole")
        let m = try CommandLineTests().bgx(["fleet", "merge"] + names.map { shards.appendingPathComponent($0).path } + ["--out", merged.path])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try CommandLineTests().bgx(["fleet", scenario.path, "--devices", "12", "--out", whole.path]).status == 0)
        for name in FleetResult.fileNames {
            #expect(try Data(contentsOf: merged.appendingPathComponent(name)) == Data(contentsOf: whole.appendingPathComponent(name)),
                    "\(name) differs")
        }
    }

    @Test("the Job is Indexed with one completion per shard; its pods' command, index from JOB_COMPLETION_INDEX, writes the shards")
    func kubernetes() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let (scenario, plan) = try prepare()
        let text = try String(contentsOf: plan.appendingPathComponent("fleet-job.yaml"), encoding: .utf8)
        let job = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect(job["apiVersion"] as? String == "batch/v1" && job["kind"] as? String == "Job")
        #expect((job["metadata"] as? [String: Any])?["name"] as? String == "bgx-fleet-news")
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        #expect(spec["completions"] as? Int == 3 && spec["parallelism"] as? Int == 3)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        #expect(container["image"] as? String == "registry.example/bgx:1")
        let command = try #require(container["command"] as? [String])
        #expect(command.count == 3 && command[0] == "sh" && command[1] == "-c")
        #expect(command[2].contains("--shard \"$JOB_COMPLETION_INDEX/3\""))
        let volume = try #require((pod["volumes"] as? [[String: Any]])?.first)
        #expect((volume["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String == "bgx-fleet")

        // Each pod, with the claim's files at DIR in place of /fleet and bgx on PATH.
        let volumeDir = dir.path
        let shell = command[2].replacingOccurrences(of: "/fleet/", with: volumeDir + "/")
        let exe = try #require(CommandLineTests.executable)
        let path = exe.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("shards"), withIntermediateDirectories: true)
        for index in 0..<3 {
            let (status, output) = try ReportBrowserTests.execute("/usr/bin/env", ["PATH=\(path)", "JOB_COMPLETION_INDEX=\(index)", "sh", "-c", shell])
            #expect(status == 0, "\(output)")
        }
        try expectMergedEqualsWhole(dir.appendingPathComponent("shards"), scenario: scenario)
    }

    @Test("the Slurm script is an array 0-(K-1) whose task, index from SLURM_ARRAY_TASK_ID, writes its shard")
    func slurm() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let (scenario, plan) = try prepare()
        let script = plan.appendingPathComponent("fleet-slurm.sh")
        let text = try String(contentsOf: script, encoding: .utf8)
        #expect(text.hasPrefix("#!/bin/sh\n"))
        let directives = text.split(separator: "\n").filter { $0.hasPrefix("#SBATCH ") }
        #expect(directives.contains("#SBATCH --array=0-2"))
        #expect(text.contains("fleet \(scenario.path) --devices 12 --shard \"$SLURM_ARRAY_TASK_ID/3\""))
        for index in 0..<3 {
            let (status, output) = try ReportBrowserTests.execute("/usr/bin/env", ["SLURM_ARRAY_TASK_ID=\(index)", "sh", script.path])
            #expect(status == 0, "\(output)")
        }
        try expectMergedEqualsWhole(plan.appendingPathComponent("shards"), scenario: scenario)
    }

    @Test("no shards, or a scenario that does not parse, is an error, exit 2")
    func badInput() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let (scenario, _) = try prepare()
        let none = try CommandLineTests().bgx(["fleet", "plan", scenario.path, "--devices", "12", "--shards", "0", "--out", dir.path])
        #expect(none.status == 2 && none.stderr.contains("--shards"))
        let bad = dir.appendingPathComponent("bad.yaml")
        try "apps:\n  - bundle: a\n    backgroundMode: [audio]\n".write(to: bad, atomically: true, encoding: .utf8)
        let broken = try CommandLineTests().bgx(["fleet", "plan", bad.path, "--devices", "12", "--shards", "2", "--out", dir.path])
        #expect(broken.status == 2 && broken.stderr.hasPrefix("error: \(bad.path):3:5: "))
    }
}
