import Foundation
import Yams

/// A fleet cut into K shards for a batch system to run: a Kubernetes Indexed
/// Job and a Slurm job array, each running the same `bgx fleet` with
/// `--shard INDEX/K`, INDEX being the one the batch system gives each task
/// (Kubernetes sets `JOB_COMPLETION_INDEX` in an Indexed Job's pods, Slurm
/// `SLURM_ARRAY_TASK_ID` in an array's tasks). Every shard writes its own
/// directory; `bgx fleet merge` adds them afterwards, in any order.
public struct FleetPlan: Sendable {
    public var scenario: String
    public var devices: Int
    public var days: Int?
    public var shards: Int
    /// Kubernetes: the container image with `bgx` on its PATH, and the
    /// persistent volume claim mounted at `/fleet` that holds the scenario
    /// (by its file name) and receives the shards.
    public var image: String
    public var claim: String
    /// Slurm: the bgx executable and the scenario as the nodes see them (a
    /// shared file system), and the directory the shards are written under.
    public var bgx: String
    public var results: String

    public init(scenario: String, devices: Int, days: Int?, shards: Int, image: String, claim: String,
                bgx: String, results: String) {
        self.scenario = scenario
        self.devices = devices
        self.days = days
        self.shards = shards
        self.image = image
        self.claim = claim
        self.bgx = bgx
        self.results = results
    }

    /// The Job's name: the scenario's file name as a DNS label (Kubernetes
    /// names pods `NAME-INDEX-…`, so it is kept short).
    public var jobName: String {
        let base = URL(fileURLWithPath: scenario).deletingPathExtension().lastPathComponent.lowercased()
        let label = base.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let trimmed = String(label).split(separator: "-").joined(separator: "-").prefix(40)
        return "bgx-fleet" + (trimmed.isEmpty ? "" : "-" + trimmed)
    }

    /// The shell command one shard runs, its index read from `indexVariable`.
    func command(bgx: String, scenario: String, results: String, indexVariable: String) -> String {
        var words = [quote(bgx), "fleet", quote(scenario), "--devices", "\(devices)"]
        if let days { words += ["--days", "\(days)"] }
        words += ["--shard", "\"$\(indexVariable)/\(shards)\"", "--out", quote(results) + "/\"$\(indexVariable)\""]
        return "exec " + words.joined(separator: " ")
    }

    /// The Indexed Job, as YAML: K completions, each retried twice on its own
    /// (`backoffLimitPerIndex`), all run at once unless the cluster is full.
    public func kubernetesJob() throws -> String {
        let scenarioInPod = "/fleet/" + URL(fileURLWithPath: scenario).lastPathComponent
        let shell = command(bgx: "bgx", scenario: scenarioInPod, results: "/fleet/shards", indexVariable: "JOB_COMPLETION_INDEX")
        let container: Node = [
            "name": "bgx",
            "image": Node(image),
            "command": ["sh", "-c", Node(shell)],
            "volumeMounts": [["name": "fleet", "mountPath": "/fleet"]],
        ]
        let job: Node = [
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": ["name": Node(jobName)],
            "spec": [
                "completionMode": "Indexed",
                "completions": Node(String(shards)),
                "parallelism": Node(String(shards)),
                "backoffLimitPerIndex": "2",
                "template": [
                    "spec": [
                        "restartPolicy": "Never",
                        "containers": [container],
                        "volumes": [["name": "fleet", "persistentVolumeClaim": ["claimName": Node(claim)]]],
                    ],
                ],
            ],
        ]
        return "# bgx fleet: \(shards) shards of \(devices) devices; afterwards\n"
            + "#   bgx fleet merge /fleet/shards/* --out /fleet/merged\n"
            + (try Yams.serialize(node: job))
    }

    /// The Slurm job array: tasks 0…K-1, one shard each; the merge follows
    /// as a job that depends on the whole array (`afterok`).
    public var slurmScript: String {
        """
        #!/bin/sh
        # bgx fleet: \(shards) shards of \(devices) devices, one per array task. Submit with
        #   sbatch --parsable THIS_FILE
        # and then merge once every task has finished:
        #   sbatch --dependency=afterok:JOBID --wrap '\(quote(bgx)) fleet merge \(quote(results))/* --out \(quote(merged))'
        #SBATCH --job-name=\(jobName)
        #SBATCH --array=0-\(shards - 1)
        #SBATCH --ntasks=1
        #SBATCH --cpus-per-task=1
        mkdir -p \(quote(results))
        \(command(bgx: bgx, scenario: scenario, results: results, indexVariable: "SLURM_ARRAY_TASK_ID"))

        """
    }

    /// Where the merge writes: beside the shards' directory.
    var merged: String { URL(fileURLWithPath: results).deletingLastPathComponent().appendingPathComponent("merged").path }

    /// A word for `sh`, in single quotes unless it needs none.
    func quote(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+:,=".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
