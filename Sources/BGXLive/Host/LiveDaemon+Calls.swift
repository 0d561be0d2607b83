import BGXCore

/// The app's API calls, each acting on the calling app's own work only: the
/// app is the connection's, never a name the message gives.
extension LiveDaemon {
    func call(_ message: LiveMessage, from app: AppID, on fd: Int32) {
        let args = message.args ?? [:]
        func reply(_ ok: Bool, _ text: String? = nil, _ values: [String: String]? = nil) {
            send(.reply(to: message.seq, ok: ok, text: text, args: values), to: fd)
        }
        // On disk before the engine hears it (reads change nothing).
        if !["backgroundTimeRemaining", "applicationState", "devicePosition"].contains(message.name ?? ""),
           !journal(.call(app: engine.bundleIdentifier(app), name: message.name ?? "", args: args)) {
            return reply(false, "the daemon could not record the call")
        }
        switch message.name ?? "" {
        case "beginBackgroundTask":
            let id = engine.beginBackgroundTask(for: app, name: args["name"])
            reply(id != Engine.invalidBackgroundTask, nil, ["id": "\(id)"])
        case "endBackgroundTask":
            guard let id = args["id"].flatMap(Int.init) else { return reply(false, "endBackgroundTask needs an id") }
            guard engine.openBackgroundTasks(of: app).contains(where: { $0.id == id }) else {
                return reply(false, "no background task \(id) of this app")
            }
            engine.endBackgroundTask(for: app, id)
            reply(true)
        case "backgroundTimeRemaining":
            reply(true, nil, ["seconds": "\(engine.backgroundTimeRemaining(for: app))"])
        case "registerTask":
            guard let identifier = args["identifier"] else { return reply(false, "registerTask needs an identifier") }
            let queue: ExecutionQueue = args["queue"] == "main" ? .main : .background
            reply(engine.registerTask(for: app, identifier: identifier, queue: queue))
        case "submitTask":
            guard let identifier = args["identifier"] else { return reply(false, "submitTask needs an identifier") }
            let kind: BGTaskKind = args["type"] == "processing" ? .processing : .appRefresh
            let earliest = args["earliestBegin"].flatMap(Double.init).map { engine.now + Time.seconds(clamping: $0) }
            let spec = TaskRequestSpec(identifier: identifier, kind: kind, earliestBegin: earliest,
                                       requiresNetworkConnectivity: args["requiresNetworkConnectivity"] == "true",
                                       requiresExternalPower: args["requiresExternalPower"] == "true")
            do {
                try engine.submitTask(for: app, spec)
                reply(true)
            } catch {
                reply(false, "\(error)")
            }
        case "cancelTask":
            guard let identifier = args["identifier"] else { return reply(false, "cancelTask needs an identifier") }
            engine.cancelTask(for: app, identifier: identifier)
            reply(true)
        case "setTaskExpirationHandler":
            guard let identifier = args["identifier"] else { return reply(false, "needs an identifier") }
            engine.setTaskExpirationHandler(for: app, identifier: identifier, isSet: args["isSet"] != "false")
            reply(true)
        case "setTaskCompleted":
            guard let identifier = args["identifier"] else { return reply(false, "setTaskCompleted needs an identifier") }
            engine.completeTask(for: app, identifier: identifier, success: args["success"] != "false")
            reply(true)
        case "completeRemoteNotification":
            guard let number = args["number"].flatMap(UInt32.init) else { return reply(false, "needs a number") }
            let result = BackgroundFetchResult.allCases.first { "\($0)" == args["result"] } ?? .newData
            engine.completeRemoteNotification(for: app, number: number, result: result)
            reply(true)
        case "applicationState":
            reply(true, nil, ["state": "\(engine.applicationState(of: app))"])
        case let name:
            guard serviceCall(name, args, from: app, reply: reply) else {
                return reply(false, "not yet supported: call \(message.name ?? "(none)")")
            }
        }
    }
}
