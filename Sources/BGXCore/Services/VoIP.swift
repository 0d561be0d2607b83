/// rules §4: VoIP. PushKit VoIP pushes launch or wake the app (cause
/// `voipPush`); on iOS 13+ it must report a call to CallKit before the
/// handler returns or it is terminated (0xbaadca11), and after repeated
/// failures its VoIP pushes are no longer delivered. The legacy VoIP socket
/// wakes a suspended app on incoming traffic; `setKeepAliveTimeout(≥ 600 s)`
/// runs a handler periodically; VoIP apps are relaunched at boot.

/// What the system keeps per app for VoIP.
struct VoIPState: Sendable, Codable {
    var nextNumber: UInt32 = 0
    /// The VoIP push whose handler runs now, and whether it reported a call.
    var handlerRunning: UInt32?
    var reportedInHandler = false
    /// The payloads (`Push.payload`) of VoIP pushes queued for this process, by number.
    var payloads: [UInt32: UInt32] = [:]
    /// Handlers that returned without reporting a call (survives termination).
    var failures = 0
    /// The keep-alive interval installed in this process.
    var keepAliveInterval: Nanoseconds?
    var keepAliveGeneration: UInt32 = 0

    mutating func processEnded() {
        handlerRunning = nil
        payloads.removeAll()
        keepAliveInterval = nil
        keepAliveGeneration &+= 1
    }
}

extension Engine {

    // MARK: PushKit VoIP pushes

    mutating func receiveVoIPPush(_ push: Push, for app: AppID) {
        let i = Int(app.index)
        let p = profile.push
        if !p.pushKitAvailable { return dropPush(app, push, "PushKit VoIP pushes exist from iOS 8 on") }
        if services.apps[i].voip.failures >= p.voipReportFailureLimit {
            return dropPush(app, push, "\(bundleIdentifier(app)) will not be launched because it failed to report "
                            + "an incoming call too many times (\(services.apps[i].voip.failures) times)")
        }
        if frontApp != app || !apps[i].state.isRunning {
            if let refusal = launchVerdict(for: app, cause: .voipPush).refusal { return dropPush(app, push, refusal.reason) }
        }
        record(app, .pushDeliver(type: .voip, priority: push.priority, toApp: true))
        wakeIntoBackground(app, cause: .voipPush)
        // A launch killed at once (over the memory limit) leaves no push for the next process.
        guard apps[i].state.isRunning else { return }
        services.apps[i].voip.nextNumber &+= 1
        if push.payload != 0 { services.apps[i].voip.payloads[services.apps[i].voip.nextNumber] = push.payload }
        apps[i].jobs.append(.voipPush(services.apps[i].voip.nextNumber))
        pump(app)
    }

    /// The payload (`Push.payload`) of the VoIP push `number`, taken (0: none).
    public mutating func takeVoIPPushPayload(for app: AppID, number: UInt32) -> UInt32 {
        services.apps[Int(app.index)].voip.payloads.removeValue(forKey: number) ?? 0
    }

    /// The payload (`Push.payload`) of the remote notification `number` handed to the app (0: none).
    public func remoteNotificationPayload(for app: AppID, number: UInt32) -> UInt32 {
        pushes.payload(app, number: number)
    }

    /// CallKit's `reportNewIncomingCall(with:update:completion:)`.
    public mutating func reportIncomingCall(for app: AppID) {
        let i = Int(app.index)
        record(app, .callReport)
        if services.apps[i].voip.handlerRunning != nil { services.apps[i].voip.reportedInHandler = true }
    }

    /// The VoIP push handler returned. Returns false when the app was
    /// terminated for not reporting a call.
    mutating func voipHandlerReturned(_ app: AppID) -> Bool {
        let i = Int(app.index)
        let reported = services.apps[i].voip.reportedInHandler
        services.apps[i].voip.handlerRunning = nil
        guard !reported, profile.push.voipMustReportCall else { return true }
        services.apps[i].voip.failures += 1
        terminate(app, .voipCallNotReported,
                  detail: "Killing app because it never posted an incoming call to the system after receiving a "
                    + "PushKit VoIP push (\(services.apps[i].voip.failures) of \(profile.push.voipReportFailureLimit))")
        return false
    }

    // MARK: The VoIP socket and the keep-alive handler (legacy VoIP)

    /// Incoming traffic on the app's VoIP socket: the system wakes the app
    /// to read it. A terminated app has no socket to watch.
    mutating func voipSocketTraffic(_ app: AppID) {
        let i = Int(app.index)
        if !apps[i].manifest.backgroundModes.contains(.voip) {
            return dropVoIP(app, .socket, "UIBackgroundModes lacks 'voip': the system does not watch the socket")
        }
        switch apps[i].state {
        case .notRunning:
            dropVoIP(app, .socket, "the app is not running: its VoIP socket is closed")
        case .suspended, .background, .inactive, .active:
            wakeForVoIP(app, .socket)
        }
    }

    mutating func dropVoIP(_ app: AppID, _ trigger: VoIPTrigger, _ reason: String) {
        record(app, .voipDrop(trigger: trigger, reason: text(reason)))
    }

    mutating func wakeForVoIP(_ app: AppID, _ trigger: VoIPTrigger) {
        record(app, .voipWake(trigger: trigger))
        wakeIntoBackground(app, cause: .voipPush)  // running or suspended: never a launch
        guard apps[Int(app.index)].state.isRunning else { return }
        apps[Int(app.index)].jobs.append(trigger == .socket ? .voipSocket : .keepAlive)
        pump(app)
    }

    /// `setKeepAliveTimeout(_:handler:)`: false (and a console message) for
    /// less than the minimum, or without the `voip` mode.
    public mutating func setKeepAliveTimeout(for app: AppID, _ timeout: Nanoseconds) -> Bool {
        let i = Int(app.index)
        let minimum = profile.push.minimumKeepAliveTimeout
        if timeout < minimum {
            log(app, "setKeepAliveTimeout: \(Time.describe(timeout)) is less than the minimum of "
                + "\(Time.describe(minimum)); the handler was not installed")
            return false
        }
        if !apps[i].manifest.backgroundModes.contains(.voip) {
            log(app, "setKeepAliveTimeout: UIBackgroundModes lacks 'voip'; the handler was not installed")
            return false
        }
        services.apps[i].voip.keepAliveInterval = timeout
        services.apps[i].voip.keepAliveGeneration &+= 1
        queue.push(.keepAlive(app, ticket(app, services.apps[i].voip.keepAliveGeneration)), at: now + timeout)
        return true
    }

    /// `clearKeepAliveTimeout()`.
    public mutating func clearKeepAliveTimeout(for app: AppID) {
        let i = Int(app.index)
        services.apps[i].voip.keepAliveInterval = nil
        services.apps[i].voip.keepAliveGeneration &+= 1
    }

    mutating func keepAliveFired(_ app: AppID, _ ticket: Ticket) {
        let i = Int(app.index)
        guard let interval = services.apps[i].voip.keepAliveInterval else { return }
        queue.push(.keepAlive(app, ticket), at: now + interval)
        // The handler is for an app in the background; one in front needs no keep-alive.
        if !apps[i].state.isForeground { wakeForVoIP(app, .keepAlive) }
    }

    // MARK: Boot

    /// VoIP apps are relaunched at boot — once the first unlock allows it
    /// when there is a passcode (rules §4, §11).
    mutating func relaunchVoIPAppsAtBoot() {
        guard profile.push.relaunchVoIPAppsAtBoot else { return }
        for i in apps.indices where apps[i].manifest.backgroundModes.contains(.voip) && apps[i].state == .notRunning {
            let app = AppID(index: Int32(i))
            if launchVerdict(for: app, cause: .boot).allowed { launch(app, cause: .boot) }
        }
    }
}
