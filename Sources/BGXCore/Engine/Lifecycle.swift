/// rules §1: process states, the delegate callbacks in iOS's order, the user's
/// actions, watchdogs and termination.
extension Engine {

    // MARK: The person

    mutating func handleUser(_ action: UserAction) {
        // The scheduler looks again only if an app it has candidates for is
        // involved; lock and unlock mark it themselves (setLocked).
        switch action {
        case let .launch(app), let .switchTo(app), let .forceQuit(app): markSchedulerDirty(for: app)
        case .home, .lock, .unlock, .tapNotification, .cancelTask, .allowNotifications, .denyNotifications: break
        }
        if let front = frontApp { markSchedulerDirty(for: front) }
        if let previous = frontAppWhenLocked { markSchedulerDirty(for: previous) }
        switch action {
        case let .launch(app):
            record(app, .user(.launch))
            setLocked(false)
            frontAppWhenLocked = nil  // unlocked by launching another app: nothing to return to
            bringToFront(app, cause: .user)
        case let .switchTo(app):
            record(app, .user(.switchTo))
            setLocked(false)
            frontAppWhenLocked = nil
            bringToFront(app, cause: .user)
        case .home:
            record(nil, .user(.home))
            if let front = frontApp {
                frontApp = nil
                sendToBackground(front)
            }
        case .lock:
            record(nil, .user(.lock))
            // Unlock returns to the app in front at this lock, if any — never
            // to one remembered from an earlier lock.
            if !device.locked { frontAppWhenLocked = frontApp }
            if let front = frontApp {
                frontApp = nil
                sendToBackground(front)
            }
            setLocked(true)
        case .unlock:
            record(nil, .user(.unlock))
            setLocked(false)
            if let previous = frontAppWhenLocked {
                frontAppWhenLocked = nil
                bringToFront(previous, cause: .user)
            }
        case let .forceQuit(app):
            record(app, .user(.forceQuit))
            forceQuit(app)
        case let .tapNotification(id):
            tapNotification(id)
        case let .cancelTask(id):
            cancelContinuedTask(for: nil, identifier: text(id))
        case let .allowNotifications(app):
            record(app, .user(.allowNotifications))
            setNotificationsAllowed(true, for: app)
        case let .denyNotifications(app):
            record(app, .user(.denyNotifications))
            setNotificationsAllowed(false, for: app)
        }
    }

    /// The app comes to the front: launched if not running, resumed if
    /// suspended, then `willEnterForeground` / `didBecomeActive`.
    mutating func bringToFront(_ app: AppID, cause: LaunchCause) {
        let i = Int(app.index)
        if let front = frontApp, front != app { sendToBackground(front) }
        frontApp = app
        if frontAppWhenLocked == app { frontAppWhenLocked = nil }
        let byUser = cause == .user || cause == .notification
        if byUser {
            apps[i].forceQuit = false
            scheduler.noteUse(app, at: now, wallClockOffset: wallClockOffset)
        }
        switch apps[i].state {
        case .notRunning:
            launch(app, cause: cause)
        case .suspended, .background:
            apps[i].stats.warmLaunches += 1   // the process was still there (rules §10: unless purged)
            resume(app)                       // only if suspended
            apps[i].jobs.append(.enterForeground)
            apps[i].jobs.append(.becomeActive)
        case .inactive, .active:
            apps[i].jobs.append(.enterForeground)
            apps[i].jobs.append(.becomeActive)
        }
        transfersAppCameToFront(app)
        if byUser { deliverHeldPushOnUserLaunch(app) }
        pump(app)
    }

    /// The home button for one app: it resigns active and enters the
    /// background — or, where it may not run in the background, terminates.
    mutating func sendToBackground(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return }
        apps[i].jobs.append(.resignActive)
        if apps[i].manifest.exitsOnSuspend {
            apps[i].jobs.append(.terminateGracefully(.exitsOnSuspend))
        } else if !device.multitasking {
            apps[i].jobs.append(.terminateGracefully(.multitaskingUnsupported))
        } else {
            apps[i].jobs.append(.enterBackground)
        }
        pump(app)
    }

    /// A swipe in the app switcher. A running app hears `willTerminate` if its
    /// main thread is free; a suspended one is simply gone [S].
    mutating func forceQuit(_ app: AppID) {
        let i = Int(app.index)
        apps[i].forceQuit = true
        cancelTransfersForForceQuit(app)
        if frontApp == app { frontApp = nil }
        if frontAppWhenLocked == app { frontAppWhenLocked = nil }
        switch apps[i].state {
        case .notRunning:
            return
        case .suspended:
            terminate(app, .userForceQuit, detail: "swiped away in the app switcher while suspended")
        case .inactive, .active, .background:
            if apps[i].inFlight == nil {
                apps[i].jobs.removeAll()
                apps[i].jobs.append(.terminateGracefully(.userForceQuit))
                pump(app)
            } else {
                terminate(app, .userForceQuit, detail: "swiped away in the app switcher while busy")
            }
        }
    }

    // MARK: Launch, resume, suspend

    /// Starts a process. A user launch goes not running → inactive → active;
    /// a system launch goes straight to the background [S].
    public mutating func launch(_ app: AppID, cause: LaunchCause) {
        let i = Int(app.index)
        guard apps[i].state == .notRunning else { return }
        apps[i].stats.launches[Int(cause.rawValue)] &+= 1
        noteLaunch(app, cause, woken: false)
        record(app, .launch(cause: cause))
        outbox.append(.launch(app, cause))
        if cause.launchesIntoForeground {
            setState(app, .inactive, .launch)
            apps[i].jobs.append(.finishLaunching(cause))
            apps[i].jobs.append(.becomeActive)
        } else {
            setState(app, .background, .launchedIntoBackground)
            openBackgroundWindow(app)
            apps[i].jobs.append(.finishLaunching(cause))
        }
        guard admitLaunchedProcess(app) else { return }
        pump(app)
    }

    mutating func resume(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .suspended else { return }
        let suspendedFor = now - apps[i].stateSince
        setState(app, .background, .resumed)
        noteSocketsOnResume(app, suspendedFor: suspendedFor)
        outbox.append(.resume(app))
        guard !apps[i].heldTimers.isEmpty else { return }
        let held = apps[i].heldTimers
        apps[i].heldTimers.removeAll()
        for timer in held {
            if timer.continuation {
                outbox.append(.fire(app, token: timer.token, continuation: true))
            } else if apps[i].backgroundQueue != nil, takeTimerQueue(app, timer.token) == .background {
                apps[i].backgroundQueue!.jobs.append(.timer(timer.token))
            } else {
                apps[i].jobs.append(.timer(timer.token))
            }
        }
    }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in the lifecycle (3 of them in this file) cost the engine 36 instructions per event.
    /// Something holds a background app running: a callback or queued job
    /// on one of its threads, app code's work queued for now until it has
    /// run (`InFlightJob.queuedForNow`), or a reason in its assertion set (a background
    /// task, a BGTask, a fetch, a session's events, a push awaiting its
    /// completion, audio, background location updates, a service event's
    /// run). Suspension and jetsam's bands (rules §10) both ask this; it
    /// reads the process table and the set, never a concern's own fields.
    @inline(__always) func keptRunningInBackground(_ i: Int) -> Bool {
        assert(assertionsMatchConcerns(i), "\(apps[i].manifest.bundleIdentifier): assertion set out of step")
        return apps[i].keptRunningInBackground
    }

    /// A background app with nothing keeping it running is suspended [S].
    mutating func suspendIfIdle(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].state == .background, !keptRunningInBackground(i) else { return }
        guard releaseResourcesForSuspension(app) else { return }
        closeBackgroundWindow(app)
        setState(app, .suspended, .noAssertions)
        outbox.append(.suspend(app))
    }

    /// An assertion ended (a task, a fetch). Code running now finishes its
    /// turn first; if the main thread is busy, `returned` suspends the app.
    mutating func suspendIfThreadFree(_ app: AppID) {
        if apps[Int(app.index)].inFlight == nil { suspendIfIdle(app) }
    }

    // MARK: The main thread

    /// Runs queued jobs while the main thread is free and the app runs.
    /// Inlined, as the compiler did before it grew the background queue's
    /// check: as a call it cost about 37 instructions per engine event in `bgx bench`.
    @inline(__always) mutating func pump(_ app: AppID) {
        let i = Int(app.index)
        while apps[i].inFlight == nil, apps[i].state.isRunning, let job = apps[i].jobs.popFirst() {
            run(job, for: app)
        }
        if apps[i].backgroundQueue != nil { pumpBackgroundQueue(app) }
        suspendIfIdle(app)
    }

    mutating func run(_ job: MainThreadJob, for app: AppID) {
        let i = Int(app.index)
        let state = apps[i].state
        switch job {
        case let .finishLaunching(cause):
            deliver(.didFinishLaunching(cause), to: app, watchdog: profile.launchWatchdog)
        case .becomeActive:
            guard state == .inactive, frontApp == app else { return }
            setState(app, .active, .becameActive)
            deliver(.didBecomeActive, to: app, watchdog: profile.sceneUpdateWatchdog)
        case .resignActive:
            guard state == .active else { return }
            setState(app, .inactive, .resignedActive)
            deliver(.willResignActive, to: app, watchdog: profile.sceneUpdateWatchdog)
        case .enterBackground:
            guard state == .inactive, frontApp != app else { return }
            setState(app, .background, .enteredBackground)
            openBackgroundWindow(app)
            deliver(.didEnterBackground, to: app, watchdog: profile.didEnterBackgroundWatchdog)
            servicesEnteredBackground(app)
        case .enterForeground:
            guard state == .background, frontApp == app else { return }
            closeBackgroundWindow(app)
            setState(app, .inactive, .enteringForeground)
            deliver(.willEnterForeground, to: app, watchdog: profile.sceneUpdateWatchdog)
            servicesEnteredForeground(app)
        case let .terminateGracefully(reason):
            deliver(.willTerminate, to: app, watchdog: profile.willTerminateWatchdog, thenTerminate: reason)
        case let .expirationHandler(id):
            guard backgroundTasks.isOpen(app, id) else { return }
            deliver(.backgroundTaskExpired(id), to: app, watchdog: nil)
        case let .timer(token):
            apps[i].jobCounter &+= 1
            apps[i].inFlight = InFlightJob(number: apps[i].jobCounter, isCallback: false,
                                           queuedForNow: apps[i].startsQueuedWork(token),
                                           callback: nil, terminateAfterwards: nil)
            outbox.append(.fire(app, token: token, continuation: false))
        case let .notification(id):
            deliver(.localNotification(id), to: app, watchdog: nil)
        case let .notificationResponse(id):
            deliver(.notificationResponse(id), to: app, watchdog: nil)
        case let .bgTask(id):
            guard taskScheduler.isRunning(app, id) else { return }
            guard registeredHandler(of: app, id) != nil else {
                terminate(app, .noLaunchHandler, detail: "NSInternalInconsistencyException: No launch handler "
                          + "registered for task with identifier \(text(id))")
                return
            }
            // Registered with `using: nil` (or another queue): it runs there, not here.
            guard launchHandlerQueue(for: app, identifier: id) == .main else {
                enqueueInBackground(.bgTask(id), for: app)
                return
            }
            deliver(.bgTask(id), to: app, watchdog: nil)
        case let .bgTaskExpired(id):
            guard taskScheduler.isRunning(app, id) else { return }
            deliver(.bgTaskExpired(id), to: app, watchdog: nil)
        case .performFetch:
            guard scheduler.apps[i].fetchInFlight != nil else { return }
            deliver(.performFetch, to: app, watchdog: nil)
        case .memoryWarning:
            deliver(.didReceiveMemoryWarning, to: app, watchdog: nil)
        case .socketsClosed:
            deliver(.socketsClosed, to: app, watchdog: nil)
        case let .service(callback):
            deliver(callback, to: app, watchdog: nil)
        case let .transfer(job):
            runTransferJob(job, for: app)
        case let .remoteNotification(number, type):
            deliver(.remoteNotification(number, type), to: app, watchdog: nil)
        case let .voipPush(number):
            services.voipHandlerStarting(app, number)
            deliver(.voipPush(number), to: app, watchdog: nil)
        case .voipSocket:
            deliver(.voipSocket, to: app, watchdog: nil)
        case .keepAlive:
            deliver(.keepAlive, to: app, watchdog: nil)
        case let .expiringActivityExpired(id):
            guard backgroundTasks.isOpen(app, id) else { return }
            deliver(.expiringActivity(id, expired: true), to: app, watchdog: nil)
        case .expiringActivity:
            preconditionFailure("an expiring activity's block runs on the background queue")
        }
    }

    mutating func deliver(_ callback: Callback, to app: AppID, watchdog limit: Nanoseconds?,
                          thenTerminate reason: TerminationReason? = nil) {
        let i = Int(app.index)
        apps[i].jobCounter &+= 1
        let number = apps[i].jobCounter
        apps[i].inFlight = InFlightJob(number: number, isCallback: true, callback: callback,
                                       terminateAfterwards: reason)
        record(app, .callback(callback))
        outbox.append(.deliver(app, callback))
        if let limit = limit {
            // Most callbacks return before time moves on; the watchdog only
            // enters the queue if this one is still running then.
            unarmedWatchdogs.append(PendingWatchdog(app: app, ticket: ticket(app, number), at: now + limit))
        }
    }

    /// The app's callback (or timer job) has returned: the main thread — or,
    /// with `queue: .background`, the background queue — is free. Without a
    /// queue: the main thread if it is busy, else the background queue (a
    /// host that answers each delivery at once never has both busy).
    public mutating func returned(_ app: AppID, on queue: ExecutionQueue? = nil) {
        let i = Int(app.index)
        guard queue != .background, let job = apps[i].inFlight else {
            // It asks whether the queue is busy itself, in place (asking here copied the whole app).
            if queue != .main { returnedInBackground(app) }
            return
        }
        apps[i].inFlight = nil
        // Its watchdog, not yet armed, is no longer needed (usually the last one noted).
        if let last = unarmedWatchdogs.last, last.app == app, last.ticket.number == job.number { unarmedWatchdogs.removeLast() }
        switch job.callback {
        case .didFinishLaunching?: taskScheduler.finishLaunching(app, epoch: apps[i].epoch)
        // rules §10: the app-switcher snapshot, once the app has had its chance to hide things.
        case .didEnterBackground?: if apps[i].state == .background { takeSnapshot(app) }
        case .voipPush?: if !voipHandlerReturned(app) { return }
        case let .expiringActivity(id, true)?: expiredCallReturned(app, id)
        default: break
        }
        if let reason = job.terminateAfterwards {
            terminate(app, reason, detail: reason == .userForceQuit
                      ? "swiped away in the app switcher" : "willTerminate returned")
            return
        }
        pump(app)
    }

    /// The main thread's job parked in app code (a sleep, a wait). Work
    /// queued for now has had its turn: from here its thread is frozen by
    /// suspension like any other, as on iOS.
    public mutating func mainJobParked(_ app: AppID) {
        let i = Int(app.index)
        guard apps[i].inFlight?.queuedForNow == true else { return }
        apps[i].inFlight!.queuedForNow = false
        suspendIfIdle(app)
    }

    /// Puts the watchdogs of callbacks still running into the queue.
    mutating func armWatchdogs() {
        for w in unarmedWatchdogs where isRunning(w) {
            queue.push(.watchdog(w.app, w.ticket), at: w.at)
        }
        unarmedWatchdogs.removeAll(keepingCapacity: true)
    }

    /// Whether the callback a watchdog watches is still running.
    @inline(__always) func isRunning(_ w: PendingWatchdog) -> Bool { isOutstanding(w.ticket, .job, w.app) }

    /// A callback ran past its watchdog (its ticket is outstanding: it still holds the thread).
    mutating func watchdogFired(_ app: AppID) {
        let i = Int(app.index)
        let inFlight = apps[i].inFlight!
        apps[i].stats.watchdogHits += 1
        let name = inFlight.callback?.name ?? "main thread work"
        let limit: Nanoseconds
        switch inFlight.callback {
        case .didFinishLaunching: limit = profile.launchWatchdog
        case .didEnterBackground: limit = profile.didEnterBackgroundWatchdog
        case .willTerminate: limit = profile.willTerminateWatchdog
        default: limit = profile.sceneUpdateWatchdog
        }
        terminate(app, .watchdog, detail: "\(name) did not return within \(Time.describe(limit))")
    }

    // MARK: Timers (the app's asynchronous work in virtual time)

    /// Schedules app work `delay` from now. A continuation resumes the job
    /// running now (busy work inside a callback); any other timer queues on
    /// the main thread. A suspended app's timers wait for it to run again;
    /// a terminated app's are dropped (docs/bgxkit.md, "Virtual time in app code").
    public mutating func scheduleTimer(for app: AppID, after delay: Nanoseconds, continuation: Bool,
                                       on thread: ExecutionQueue = .main) -> Int32 {
        let token = nextTimerToken
        nextTimerToken &+= 1
        if thread == .background && !continuation {
            let i = Int(app.index)
            if apps[i].backgroundQueue == nil { apps[i].backgroundQueue = BackgroundQueueState() }
            apps[i].backgroundQueue!.timerTokens.insert(token)
        }
        if !continuation {
            forEachController(AppWorkQueued(app: app))
        }
        queue.push(.timer(app, epoch: apps[Int(app.index)].epoch, token: token, continuation: continuation),
                   at: now + max(0, delay))
        return token
    }

    /// App work due now (a block put on a queue, a task's job): it goes on
    /// its thread's queue at once, not through the event queue, so that an
    /// app with work waiting to run is not suspended before it runs — iOS
    /// suspends a process whose threads are idle, and these are not.
    public mutating func queueWorkNow(for app: AppID, on thread: ExecutionQueue) -> Int32 {
        let token = nextTimerToken
        nextTimerToken &+= 1
        let i = Int(app.index)
        apps[i].queuedNow.insert(token)
        if thread == .background {
            if apps[i].backgroundQueue == nil { apps[i].backgroundQueue = BackgroundQueueState() }
            apps[i].backgroundQueue!.timerTokens.insert(token)
        }
        forEachController(AppWorkQueued(app: app))
        switch apps[i].state {
        case .notRunning:
            break
        case .suspended:
            apps[i].heldTimers.append(HeldTimer(token: token, continuation: false))
        case .inactive, .active, .background:
            if thread == .background {
                _ = takeTimerQueue(app, token)
                enqueueInBackground(.timer(token), for: app)
            } else {
                apps[i].jobs.append(.timer(token))
                pump(app)
            }
        }
        return token
    }

    mutating func timerFired(_ app: AppID, epoch: UInt32, token: Int32, continuation: Bool) {
        let i = Int(app.index)
        guard apps[i].epoch == epoch else { return }
        switch apps[i].state {
        case .notRunning:
            return
        case .suspended:
            apps[i].heldTimers.append(HeldTimer(token: token, continuation: continuation))
        case .inactive, .active, .background:
            if continuation {
                outbox.append(.fire(app, token: token, continuation: true))
            } else if apps[i].backgroundQueue != nil, takeTimerQueue(app, token) == .background {
                enqueueInBackground(.timer(token), for: app)
                suspendIfThreadFree(app)
            } else {
                apps[i].jobs.append(.timer(token))
                pump(app)
            }
        }
    }

    // MARK: Termination

    /// Ends the process. Every termination carries its reason.
    public mutating func terminate(_ app: AppID, _ reason: TerminationReason, detail: String) {
        guard apps[Int(app.index)].state != .notRunning else { return }
        // A process jetsam chose: its line is made from the kill's numbers.
        let words = reason == .memoryPressure && memory.apps[Int(app.index)].jettison != nil ? nil : text(detail)
        terminate(app, reason, detailText: words)
    }

    /// `terminate` with its words already interned (nil: a jetsam kill's, made from its numbers).
    mutating func terminate(_ app: AppID, _ reason: TerminationReason, detailText: TextID?) {
        let i = Int(app.index)
        guard apps[i].state != .notRunning else { return }
        if reason == .memoryPressure, let kill = memory.apps[i].jettison {
            record(app, .memoryKill(kill))
        } else {
            record(app, .terminate(reason: reason, detail: detailText ?? text("")))
        }
        setState(app, .notRunning, .terminated)
        // Each controller lets the process go, in `forEachController`'s order (the trace's).
        forEachController(ProcessEnded(app: app, reason: reason, context: controllerContext))
        // The termination is counted in the same access that clears the process (each write checks uniqueness).
        apps[i].processEnded(reason)
        markSchedulerDirty(for: app)
        if frontApp == app { frontApp = nil }
        outbox.append(.terminate(app))
    }

    /// The app called `exit()`.
    public mutating func exit(_ app: AppID) {
        terminate(app, .exit, detail: "the app called exit()")
    }

    /// What `applicationState` answers: the app sees only active, inactive or
    /// background (a suspended app runs no code to ask).
    public func applicationState(of app: AppID) -> ProcessState { apps[Int(app.index)].state }
}

extension AppProcess {
    /// `Engine.keptRunningInBackground` read from the record alone: the
    /// process table answers jetsam so (`MemoryFacts`), without the engine's
    /// debug check that the assertion set matches the controllers.
    @inline(__always) var keptRunningInBackground: Bool {
        // The background queue's job in flight last: only app code's work queued for now holds there.
        (inFlight?.holdsApp ?? false) || !jobs.isEmpty
            || !(backgroundQueue?.jobs.isEmpty ?? true)
            || !assertions.isDisjoint(with: .keepRunning)
            || (backgroundQueue?.inFlight?.queuedForNow ?? false)
    }
}
