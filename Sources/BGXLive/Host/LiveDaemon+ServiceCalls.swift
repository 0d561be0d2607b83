import BGXCore

/// The app's calls beyond background tasks and BGTaskScheduler: local
/// notifications, background fetch, audio, location and region monitoring,
/// accessory sessions, expiring activities — each on the calling
/// app's own state. What the live host cannot carry out yet is refused with
/// "not yet supported: …", never pretended.
extension LiveDaemon {
    /// Handles the call and returns true, or returns false for a call it does not know.
    func serviceCall(_ name: String, _ args: [String: String], from app: AppID,
                     reply: (Bool, String?, [String: String]?) -> Void) -> Bool {
        func flag(_ key: String) -> Bool { args[key] == "true" }
        switch name {
        case "processState":
            reply(true, nil, ["state": "\(engine.state(of: app))"])
        case "addNotification":
            guard let id = args["identifier"] else { reply(false, "addNotification needs an identifier", nil); return true }
            let trigger: NotificationTrigger
            switch args["trigger"] ?? "immediate" {
            case "immediate": trigger = .immediate
            case "interval":
                guard let seconds = args["seconds"].flatMap(Double.init), seconds.isFinite else {
                    reply(false, "an interval trigger needs seconds", nil); return true
                }
                trigger = .timeInterval(Time.seconds(clamping: seconds), repeats: flag("repeats"))
            default:
                reply(false, "not yet supported: \(args["trigger"] ?? "") notification triggers on the live host", nil)
                return true
            }
            let sound: NotificationSound? = args["sound"].map { $0 == "default" ? .default : .named($0) }
            let content = NotificationContent(title: args["title"] ?? "", body: args["body"] ?? "", sound: sound,
                                              badge: args["badge"].flatMap(Int.init))
            do {
                try engine.scheduleNotification(for: app, id: id, trigger: trigger, content: content)
                reply(true, nil, nil)
            } catch {
                // What iOS does with a trigger it cannot accept: NSInternalInconsistencyException ends the app.
                engine.terminate(app, .invalidNotificationTrigger, detail: "NSInternalInconsistencyException: \(error)")
                reply(false, "\(error)", nil)
            }
        case "removePendingNotifications":
            for id in (args["identifiers"] ?? "").split(separator: "\n") { engine.cancelNotification(for: app, id: String(id)) }
            reply(true, nil, nil)
        case "removeAllPendingNotifications":
            engine.cancelAllNotifications(for: app)
            reply(true, nil, nil)
        case "removeDeliveredNotifications":
            engine.removeDeliveredNotifications(for: app, ids: args["identifiers"].map { $0.split(separator: "\n").map(String.init) })
            reply(true, nil, nil)
        case "presentNotification":
            guard let id = args["identifier"], let raw = args["options"].flatMap(UInt8.init) else {
                reply(false, "presentNotification needs an identifier and options", nil); return true
            }
            engine.presentNotification(for: app, id: id, options: NotificationPresentation(rawValue: raw))
            reply(true, nil, nil)
        case "badge":
            if let value = args["value"].flatMap(Int.init) { engine.setBadge(of: app, value) }
            reply(true, nil, ["badge": "\(engine.badge(of: app))"])
        case "setMinimumBackgroundFetchInterval":
            let seconds = args["seconds"].flatMap(Double.init)
            engine.setMinimumBackgroundFetchInterval(for: app, seconds.map { Time.seconds(clamping: $0) })
            reply(true, nil, nil)
        case "completeFetch":
            let result = BackgroundFetchResult.allCases.first { "\($0)" == args["result"] } ?? .noData
            engine.completeFetch(for: app, result: result)
            reply(true, nil, nil)
        case "cancelAllTasks":
            engine.cancelAllTasks(for: app)
            reply(true, nil, nil)
        case "runningTaskKind":
            reply(true, nil, engine.runningTaskKind(for: app, identifier: args["identifier"] ?? "").map { ["kind": "\($0)"] })
        case "startAudio":
            guard let category = AudioCategory(rawValue: args["category"] ?? "playback") else {
                reply(false, "unknown audio category \(args["category"] ?? "")", nil); return true
            }
            let duration = args["seconds"].flatMap(Double.init).map { Time.seconds(clamping: $0) }
            let ok = engine.startAudio(for: app, duration: duration, category: category, mixesWithOthers: flag("mixesWithOthers"))
            reply(ok, ok ? nil : "audio refused (see the trace)", nil)
        case "stopAudio":
            engine.stopAudio(for: app)
            reply(true, nil, nil)
        case "isPlayingAudio":
            reply(true, nil, ["playing": "\(engine.isPlayingAudio(app))"])
        case "startLocation", "stopLocation":
            guard let service = LocationService(rawValue: args["service"] ?? "") else {
                reply(false, "\(name) needs a service (standard, significant, region)", nil); return true
            }
            if name == "startLocation" { engine.startLocation(for: app, service) } else { engine.stopLocation(for: app, service) }
            reply(true, nil, nil)
        case "setAllowsBackgroundLocationUpdates":
            engine.setAllowsBackgroundLocationUpdates(for: app, flag("allowed"))
            reply(true, nil, nil)
        case "startMonitoringRegion":
            guard let identifier = args["identifier"], let radius = args["radius"].flatMap(Double.init), radius.isFinite else {
                reply(false, "startMonitoringRegion needs an identifier and a radius", nil); return true
            }
            engine.startMonitoringRegion(for: app, identifier: identifier, radius: Int64(max(1, min(radius, 1e9))))
            reply(true, nil, nil)
        case "stopMonitoringRegion":
            engine.stopMonitoringRegion(for: app, identifier: args["identifier"] ?? "")
            reply(true, nil, nil)
        case "devicePosition":
            reply(true, nil, ["metres": "\(engine.devicePosition)"])
        case "openAccessorySession", "closeAccessorySession":
            guard let transport = AccessoryTransport.allCases.first(where: { "\($0)" == args["transport"] }) else {
                reply(false, "\(name) needs a transport (accessory, bluetooth)", nil); return true
            }
            if name == "openAccessorySession" { engine.openAccessorySession(for: app, transport) }
            else { engine.closeAccessorySession(for: app, transport) }
            reply(true, nil, nil)
        case "performExpiringActivity":
            // The engine queues the block's first call (expired = false) on the background queue.
            if let id = engine.performExpiringActivity(for: app, reason: args["reason"] ?? "") {
                reply(true, nil, ["id": "\(id)"])
            } else {
                reply(false, "no background time to be had (see the trace): the block is called once, with expired = true", nil)
            }
        default:
            return transferCall(name, args, from: app, reply: reply)
        }
        return true
    }
}
