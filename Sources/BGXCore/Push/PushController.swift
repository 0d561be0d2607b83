/// rules §7's controller: each app's pushes — the one held, the hourly
/// throttle, the daily budget, the pushes awaiting their completion
/// handler — and the decisions that depend on them. It takes what it is
/// told (the time, the settings, the process's epoch) and returns effects;
/// the engine judges what it does not own (the launch policy, dasd's push
/// policies, the device) and carries the effects out.
struct PushController: Sendable, Codable {
    /// Per app, by `AppID.index`; survives the process (the budget, the held push).
    private(set) var apps: [PushState] = []
    /// Apps with a push held for them: a device change retries these, not every app.
    private(set) var heldApps: Set<Int32> = []

    mutating func appInstalled() { apps.append(PushState()) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Transfers/, Trace/ and Push/ (1 of them in this file) cost the engine 4 instructions per event.
    /// Inlined, and the record left alone when nothing awaits: a process
    /// ends on nearly every launch under memory pressure.
    @inline(__always) mutating func processEnded(_ app: AppID) {
        if !apps[Int(app.index)].awaitingCompletion.isEmpty { apps[Int(app.index)].processEnded() }
    }

    /// Background deliveries to the app in the background within the past hour.
    func recentDeliveries(_ app: AppID, now: Nanoseconds) -> ArraySlice<Nanoseconds> {
        let recent = apps[Int(app.index)].recent
        return recent[(recent.firstIndex { now - $0 < Time.hours(1) } ?? recent.endIndex)...]
    }

    /// What the controller itself holds a background push for: the hourly
    /// throttle, then the daily budget (asked after the system's own conditions).
    func ownHold(_ app: AppID, now: Nanoseconds, settings: PushSettings,
                 clockText: (Nanoseconds) -> String) -> (reason: String, retryAt: Nanoseconds?)? {
        let lastHour = recentDeliveries(app, now: now)
        if lastHour.count >= settings.silentPushesPerHour {
            return ("throttled: \(lastHour.count) background pushes in the past hour "
                    + "(at most \(settings.silentPushesPerHour))", lastHour[lastHour.startIndex] + Time.hours(1))
        }
        let budget = apps[Int(app.index)].budget
        if let limit = settings.silentPushDailyBudget, let resets = budget.dayEnds(after: now), budget.spent(at: now) >= limit {
            return ("the daily budget of \(limit) background pushes is spent; it resets at " + clockText(resets), resets)
        }
        return nil
    }

    /// Keeps only the newest push; a retry is scheduled for when a throttle or budget ends.
    mutating func hold(_ app: AppID, _ push: Push, _ reason: String, retryAt: Nanoseconds?, now: Nanoseconds) -> [Effect] {
        let i = Int(app.index)
        var effects: [Effect] = []
        if let older = apps[i].held {
            effects.append(.pushDrop(app, older, reason: "replaced by a newer push while held: only the newest is kept", held: false))
        }
        apps[i].held = push
        heldApps.insert(app.index)
        apps[i].heldSince = now
        effects.append(.pushDrop(app, push, reason: "held: " + reason, held: true))
        effects += scheduleRetry(app, at: retryAt)
        return effects
    }

    mutating func scheduleRetry(_ app: AppID, at time: Nanoseconds?) -> [Effect] {
        guard let time else { return [] }
        let i = Int(app.index)
        // The retry already queued for that moment serves: a held push retried on every device
        // change would otherwise leave a stale event per change until the throttle or budget ends.
        if apps[i].retryAt == time { return [] }
        apps[i].retryAt = time
        apps[i].retryGeneration &+= 1
        return [.schedule(.pushRetry(app, generation: apps[i].retryGeneration), at: time)]
    }

    /// The retry event of this generation came due: true if it is the
    /// retry still wanted (a later one replaces it); none is queued now.
    mutating func retryDue(_ app: AppID, generation: UInt32) -> Bool {
        let i = Int(app.index)
        guard apps[i].retryGeneration == generation else { return false }
        apps[i].retryAt = nil
        return true
    }

    /// The held push, taken: it is being delivered or dropped.
    mutating func takeHeld(_ app: AppID) -> Push? {
        let i = Int(app.index)
        guard let push = apps[i].held else { return nil }
        apps[i].held = nil
        heldApps.remove(app.index)
        return push
    }

    /// Wakes or launches the app with the push; it counts against the
    /// throttle and the daily budget.
    mutating func deliverInBackground(_ app: AppID, _ push: Push, now: Nanoseconds) -> [Effect] {
        let i = Int(app.index)
        apps[i].recent = Array(recentDeliveries(app, now: now)) + [now]
        apps[i].budget.add(1, at: now, day: .rolling)
        return [.trace(app, .pushDeliver(type: push.type, priority: push.priority, toApp: true)),
                .wakeIntoBackground(app, .silentPush),
                .handPushToApp(app, push, watched: true)]
    }

    /// Queues `didReceiveRemoteNotification` on the main thread. A watched
    /// push keeps the app running until its completion handler is called,
    /// for at most `completionTimeout`.
    mutating func handToApp(_ app: AppID, _ push: Push, watched: Bool, epoch: UInt32, now: Nanoseconds,
                            completionTimeout: Nanoseconds) -> [Effect] {
        let i = Int(app.index)
        apps[i].nextNumber &+= 1
        let number = apps[i].nextNumber
        apps[i].awaitingCompletion.append(AwaitedPush(number: number, watched: watched, payload: push.payload))
        var effects: [Effect] = []
        if watched {
            effects.append(.setAssertion(app, .pushCompletion, true))
            effects.append(.schedule(.pushTimeout(app, Ticket(epoch: epoch, number: number)), at: now + completionTimeout))
        }
        effects.append(.enqueue(app, .remoteNotification(number, push.type)))
        return effects
    }

    /// The payload of a push handed to the app whose completion it has not called (0: none).
    func payload(_ app: AppID, number: UInt32) -> UInt32 {
        apps[Int(app.index)].awaitingCompletion.first { $0.number == number }?.payload ?? 0
    }

    /// The push's `fetchCompletionHandler` was called.
    mutating func completed(_ app: AppID, number: UInt32, result: BackgroundFetchResult) -> [Effect] {
        let i = Int(app.index)
        guard let k = apps[i].awaitingCompletion.firstIndex(where: { $0.number == number }) else {
            return [.log(app, "didReceiveRemoteNotification: the completion handler was called more than once")]
        }
        apps[i].awaitingCompletion.remove(at: k)
        return [.setAssertion(app, .pushCompletion, apps[i].keepsAppRunning),
                .trace(app, .pushComplete(result: result)),
                .suspendIfThreadFree(app)]
    }
}

// MARK: Decisions

extension PushController {
    /// A push reaches the device for the app (not a VoIP push: the coordinator
    /// gives those to the long-running services, rules §4). An alert is shown
    /// to the person unless the app is in front; a background push to an app
    /// in front is the app's; otherwise the gate decides: delivered (waking or
    /// launching the app), dropped, or held.
    mutating func receive(_ app: AppID, _ push: Push, _ c: PushConditions, settings: PushSettings) -> [Effect] {
        switch push.type {
        case .alert:
            let effects: [Effect] = [.trace(app, .pushDeliver(type: .alert, priority: push.priority, toApp: c.inFront))]
            return c.inFront ? effects + handToApp(app, push, c, settings: settings) : effects
        case .background:
            if c.inFront {
                return [.trace(app, .pushDeliver(type: .background, priority: push.priority, toApp: true))]
                    + handToApp(app, push, c, settings: settings)
            }
            switch gate(app, push, c, settings: settings) {
            case nil: return deliverInBackground(app, push, now: c.now)
            case let .drop(reason): return drop(app, push, reason, launchRefusal: c.launchRefusal)
            case let .hold(reason, retryAt):
                return Self.refusedLaunch(app, push, reason, c.launchRefusal)
                    + hold(app, push, reason, retryAt: retryAt, now: c.now)
            }
        case .voip:
            assertionFailure("VoIP pushes are the long-running services' (rules §4)")
            return []
        }
    }

    /// Hands a push to the app in front (or launched by the user): not watched, it holds nothing.
    private mutating func handToApp(_ app: AppID, _ push: Push, _ c: PushConditions, settings: PushSettings) -> [Effect] {
        handToApp(app, push, watched: false, epoch: c.epoch, now: c.now, completionTimeout: settings.completionTimeout)
    }

    /// The push is dropped with its reason; when the reason is the launch
    /// policy's refusal (`launchRefusal`, for the push's cause), that is a
    /// refused launch for the launch controller.
    func drop(_ app: AppID, _ push: Push, _ reason: String, launchRefusal: LaunchRefusal?) -> [Effect] {
        Self.refusedLaunch(app, push, reason, launchRefusal) + [.pushDrop(app, push, reason: reason, held: false)]
    }

    /// A push dropped or held because the launch policy refused the app (its
    /// reason is the refusal's) is a refused launch.
    private static func refusedLaunch(_ app: AppID, _ push: Push, _ reason: String,
                                      _ refusal: LaunchRefusal?) -> [Effect] {
        guard let refusal, refusal.reason == reason else { return [] }
        return [.noteRefusedLaunch(app, push.type == .voip ? .voipPush : .silentPush, refusal)]
    }

    /// Each app with a push held, in index order: conditions changed (the
    /// device, an unlock, a reboot), its push may go now (`retryHeld`).
    func heldPushRetries() -> [Effect] {
        heldApps.sorted().compactMap { apps[Int($0)].held != nil ? .retryHeldPush(AppID(index: $0)) : nil }
    }

    /// The retry event of this generation came due: the held push is tried
    /// again if it is the retry still wanted.
    mutating func retryFired(_ app: AppID, generation: UInt32) -> [Effect] {
        retryDue(app, generation: generation) ? [.retryHeldPush(app)] : []
    }

    /// The held push meets the gate again: delivered, dropped, or held on
    /// (with a retry when time alone will let it go). Nothing for an app in
    /// front: the person's launch delivered it.
    mutating func retryHeld(_ app: AppID, _ c: PushConditions, settings: PushSettings) -> [Effect] {
        guard let push = apps[Int(app.index)].held, !c.isFrontApp else { return [] }
        switch gate(app, push, c, settings: settings) {
        case nil:
            _ = takeHeld(app)
            return deliverInBackground(app, push, now: c.now)
        case let .drop(reason):
            _ = takeHeld(app)
            return drop(app, push, reason, launchRefusal: c.launchRefusal)
        case let .hold(_, retryAt):
            return scheduleRetry(app, at: retryAt)
        }
    }

    /// rules §7 [D]: a held push is delivered at once when the person launches the app.
    mutating func deliverHeldOnUserLaunch(_ app: AppID, epoch: UInt32, now: Nanoseconds,
                                          settings: PushSettings) -> [Effect] {
        guard let push = takeHeld(app) else { return [] }
        return [.trace(app, .pushDeliver(type: push.type, priority: push.priority, toApp: true))]
            + handToApp(app, push, watched: false, epoch: epoch, now: now, completionTimeout: settings.completionTimeout)
    }

    /// A watched push's completion handler was not called in time: the app is ended.
    func completionTimedOut(_ app: AppID, settings: PushSettings) -> [Effect] {
        [.terminate(app, .completionHandlerTimeout,
                    detail: "didReceiveRemoteNotification: the completion handler was not called within "
                        + Time.describe(settings.completionTimeout) + " (handler: silent push)")]
    }
}

/// The push controller's state for one app, as data (AOSP's
/// `dumpControllerStateLocked`): what `explain` puts into words and a live
/// host's status can show as it is.
public struct PushControllerDump: ControllerDump, Equatable {
    public var concern: String { "push" }
    /// The push held for the app, and since when.
    public var held: Push?
    public var heldSince: Nanoseconds?
    /// Background deliveries within the past hour, of at most `perHour`.
    public var deliveredPastHour: Int
    public var perHour: Int
    /// Background pushes delivered in the budget's current day, of at most `dailyBudget` (nil: no budget).
    public var budgetSpent: Int
    public var dailyBudget: Int?
    /// When the budget's day ends, if one is running.
    public var budgetResets: Nanoseconds?
    /// Pushes handed to the app whose completion handler it has not called.
    public var awaitingCompletion: Int
    /// What the held push meets now, and what a background push (priority
    /// 5) sent now would (nil: the app lacks `remote-notification`).
    public var heldVerdict: String?
    public var backgroundPushNow: String?
    /// For a `voip` app: the calls it failed to report, of the failures allowed.
    public var voipFailures: Int?
    public var voipFailureLimit: Int?

    /// The throttle and budget in words, times read by `when`.
    public func throttleText(when: (Nanoseconds) -> String) -> String {
        var out = "throttle: \(deliveredPastHour) of \(perHour) in the past hour"
        if let dailyBudget {
            out += "; daily budget: \(budgetSpent) of \(dailyBudget)"
            if let budgetResets, budgetSpent > 0 { out += " (resets at \(when(budgetResets)))" }
        }
        return out
    }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = []
        if let held, let heldSince {
            lines.append("held: a \(held.type) push (priority \(held.priority)) since \(when(heldSince))")
        }
        lines.append(throttleText(when: when))
        if awaitingCompletion > 0 { lines.append("\(awaitingCompletion) push(es) awaiting the app's completion handler") }
        return lines
    }

    /// "Why hasn't my push arrived?" (rules §7, §4): the held push and what
    /// holds it, what a background push would meet now, the throttle and
    /// budget spent, and VoIP report failures; nothing for an app with
    /// neither push mode and no held push.
    public func explainSection(app: String, at: String, when: (Nanoseconds) -> String) -> ExplainSection? {
        guard backgroundPushNow != nil || voipFailures != nil || held != nil else { return nil }
        var lines: [String] = []
        if let held, let heldSince {
            lines.append("held: a \(held.type) push (priority \(held.priority)) since \(when(heldSince))"
                         + (heldVerdict.map { " — \($0)" } ?? ""))
        }
        if let backgroundPushNow {
            lines.append("a background push (priority 5) now would be \(backgroundPushNow)")
            lines.append(throttleText(when: when))
        }
        if let voipFailures, let voipFailureLimit {
            lines.append("VoIP: \(voipFailures) of \(voipFailureLimit) allowed failures to report a call"
                         + (voipFailures >= voipFailureLimit ? " — VoIP pushes are no longer delivered" : ""))
        }
        return ExplainSection(heading: "pushes to \(app) at \(at)", lines: lines)
    }
}

extension PushController {
    func dump(_ app: AppID, now: Nanoseconds, settings: PushSettings) -> PushControllerDump {
        let state = apps[Int(app.index)]
        return PushControllerDump(held: state.held, heldSince: state.heldSince,
                                  deliveredPastHour: recentDeliveries(app, now: now).count,
                                  perHour: settings.silentPushesPerHour,
                                  budgetSpent: state.budget.spent(at: now), dailyBudget: settings.silentPushDailyBudget,
                                  budgetResets: state.budget.dayEnds(after: now),
                                  awaitingCompletion: state.awaitingCompletion.count)
    }
}

extension PushController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        processEnded(app)
    }

    /// Conditions changed: held pushes may go now.
    func deviceChanged(_ change: DeviceChange, _ context: ControllerContext, _ effects: inout [Effect]) {
        if !heldApps.isEmpty { effects += heldPushRetries() }
    }

    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        apps[Int(app.index)].keepsAppRunning ? .pushCompletion : []
    }
}
