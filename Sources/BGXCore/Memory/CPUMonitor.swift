/// rules §10: a background app above 80 % CPU over 60 s is killed
/// (`cpuLimit`) [O]; processing tasks with `requiresExternalPower` are
/// exempt [D]. Busy main-thread work (`work`) is CPU. Event-driven: the
/// monitor computes when the limit would be crossed and checks then.
extension Engine {
    /// The app's main thread is busy from now for `duration`.
    public mutating func noteBusy(_ app: AppID, _ duration: Nanoseconds) {
        let i = Int(app.index)
        guard duration > 0, apps[i].state == .background, !isExemptFromCPUMonitor(app) else { return }
        memory.noteBusy(app, now: now, for: duration, window: schedulerSettings.cpuLimitWindow)
        scheduleCPUCheck(app)
    }

    func isExemptFromCPUMonitor(_ app: AppID) -> Bool {
        taskScheduler.apps[Int(app.index)].running.contains {
            // rules §13 [D]: continued processing may do intensive CPU work in the background.
            ($0.kind == .processing && $0.requiresExternalPower) || $0.kind == .continuedProcessing
        }
    }

    var cpuLimitBusy: Nanoseconds {
        Nanoseconds(schedulerSettings.cpuLimitFraction * Double(schedulerSettings.cpuLimitWindow))
    }

    /// Checks when the busy time in the trailing window would reach the limit.
    mutating func scheduleCPUCheck(_ app: AppID) {
        if let check = memory.nextCPUCheck(app, now: now, epoch: apps[Int(app.index)].epoch,
                                           window: schedulerSettings.cpuLimitWindow, limit: cpuLimitBusy) {
            apply(check)
        }
    }

    mutating func cpuCheckFired(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .background,
              !isExemptFromCPUMonitor(app) else { return }
        if let effect = memory.cpuCheckDue(app, now: now, epoch: apps[i].epoch, window: schedulerSettings.cpuLimitWindow,
                                           fraction: schedulerSettings.cpuLimitFraction) {
            apply(effect)
        }
    }
}
