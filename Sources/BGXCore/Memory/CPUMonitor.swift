/// rules §10: a background app above 80 % CPU over 60 s is killed
/// (`cpuLimit`) [O]; processing tasks with `requiresExternalPower` are
/// exempt [D]. Busy main-thread work (`work`) is CPU. Event-driven: the
/// monitor computes when the limit would be crossed and checks then.
extension Engine {
    /// The app's main thread is busy from now for `duration`.
    public mutating func noteBusy(_ app: AppID, _ duration: Nanoseconds) {
        let i = Int(app.index)
        guard duration > 0, apps[i].state == .background, !isExemptFromCPUMonitor(app) else { return }
        let window = schedulerSettings.cpuLimitWindow
        apps[i].cpu.intervals.removeAll { $0.end <= now - window }
        let start = max(now, apps[i].cpu.intervals.last?.end ?? now)
        apps[i].cpu.intervals.append((start, start + duration))
        scheduleCPUCheck(app)
    }

    func isExemptFromCPUMonitor(_ app: AppID) -> Bool {
        apps[Int(app.index)].runningTasks.contains {
            // rules §13 [D]: continued processing may do intensive CPU work in the background.
            ($0.kind == .processing && $0.requiresExternalPower) || $0.kind == .continuedProcessing
        }
    }

    func busy(_ app: AppID, from: Nanoseconds, to: Nanoseconds) -> Nanoseconds {
        var total: Nanoseconds = 0
        for interval in apps[Int(app.index)].cpu.intervals {
            let s = max(interval.start, from), e = min(interval.end, to)
            if e > s { total += e - s }
        }
        return total
    }

    var cpuLimitBusy: Nanoseconds {
        Nanoseconds(schedulerSettings.cpuLimitFraction * Double(schedulerSettings.cpuLimitWindow))
    }

    /// Finds the first moment the busy time in the trailing window reaches the
    /// limit (busy time grows at most one second per second, so each step
    /// never overshoots), and checks then.
    mutating func scheduleCPUCheck(_ app: AppID) {
        let i = Int(app.index)
        guard let lastEnd = apps[i].cpu.intervals.last?.end else { return }
        let window = schedulerSettings.cpuLimitWindow
        var t = now
        for _ in 0..<32 {
            let b = busy(app, from: t - window, to: t)
            if b >= cpuLimitBusy { break }
            t += cpuLimitBusy - b
            if t > lastEnd { return }
        }
        apps[i].cpu.checkNumber &+= 1
        queue.push(.cpuCheck(app, ticket(app, apps[i].cpu.checkNumber)), at: t)
    }

    mutating func cpuCheckFired(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .background,
              !isExemptFromCPUMonitor(app) else { return }
        let window = schedulerSettings.cpuLimitWindow
        let b = busy(app, from: now - window, to: now)
        if b >= cpuLimitBusy {
            terminate(app, .cpuLimit, detail: "CPU time \(Time.describe(b)) over the last \(Time.describe(window)) "
                      + "in the background exceeds \(Int(schedulerSettings.cpuLimitFraction * 100)) %")
        } else {
            scheduleCPUCheck(app)
        }
    }
}
