import BGXCore
import Glibc

/// One real process the daemon launched for an app: its pid, a pidfd (a
/// handle a reused pid cannot fool), its leaf cgroup, and what the daemon
/// is waiting for from it.
final class LiveProcess {
    let app: AppID
    let bundle: String
    let pid: pid_t
    let pidfd: Int32
    /// The app's own leaf cgroup (cgroup modes), nil under SIGSTOP.
    let cgroup: String?
    /// The engine's lifetime of the app this process is.
    let epoch: UInt32
    var frozen = false
    /// The daemon ended it, for this reason (an exit it did not cause is the app's own).
    var killedFor: String?
    /// The connection the process proved is its own (see `LiveDaemon.hello`).
    var connection: Int32?
    /// Callbacks made before the process connected, sent on `hello` in order.
    var queued: [LiveMessage] = []
    /// Callbacks sent and not yet acknowledged, with the queue the engine ran them on.
    var awaitingAck: [Int: ExecutionQueue] = [:]
    /// CPU time (nanoseconds) already reported to the engine's CPU monitor.
    var cpuSeen: Int64 = 0
    /// The resident size last reported to the engine, in bytes.
    var reportedBytes: Int64 = 0

    init(app: AppID, bundle: String, pid: pid_t, pidfd: Int32, cgroup: String?, epoch: UInt32) {
        self.app = app
        self.bundle = bundle
        self.pid = pid
        self.pidfd = pidfd
        self.cgroup = cgroup
        self.epoch = epoch
    }
}
