import BGXApp
import BGXCore
import BGXLive
import Foundation
import Glibc

/// Runs an app's delegate as a real process under `bgx daemon`: the live
/// host's counterpart of the simulated device's app runtime. The daemon
/// started this process (`BGX_SOCKET`, `BGX_BUNDLE_IDENTIFIER`). The main
/// thread runs the main run loop, as UIApplicationMain does on iOS, so GCD's
/// main queue, `Timer`s, `OperationQueue.main` and `@MainActor` tasks run
/// there in real time; a reader thread takes the daemon's frames off the
/// socket (blocked in `recv`, never polling) and puts each callback on the
/// main queue, where it becomes the delegate method iOS would call and is
/// acknowledged when that returns. Calls into the system may come from any
/// thread. A frozen process runs none of it, as on iOS.
public enum LiveApplication {
    /// Connects, makes the delegate (inside the app's context, so its `init`
    /// may use `Application.shared`), runs callbacks until the daemon closes
    /// the connection, then exits.
    public static func main(_ makeDelegate: () -> ApplicationDelegate) -> Never {
        let client: LiveClient
        do { client = try LiveClient() } catch {
            FileHandle.standardError.write(Data("bgx live: \(error)\n".utf8))
            Glibc.exit(1)
        }
        let connection = LiveSystemConnection(client: client)
        let application = Application(bundleIdentifier: client.bundleIdentifier, connection: connection, delegate: nil)
        // A real process holds one app: code on GCD's other threads finds it too.
        ProcessContext.processApplication = application
        ProcessContext.$current.withValue(application) {
            application.attachDelegate(makeDelegate())
            run(application, connection)
        }
        // `run` never returns (the process ends when the daemon lets it go).
        Glibc.exit(0)
    }

    static func run(_ application: Application, _ connection: LiveSystemConnection) -> Never {
        let client = connection.client
        // The app's background queue (the engine's `.background`): a BGTask
        // launch handler registered without a queue, an expiring activity's block.
        let background = DispatchQueue(label: "bgx background queue")
        client.startReading(deliver: { message in
            guard message.type == "callback", let name = message.name else { return }
            let args = message.args ?? [:]
            (args["queue"] == "background" ? background : DispatchQueue.main).async {
                deliver(name, args, to: application, connection)
                try? client.acknowledge(message)
            }
        }, ended: {
            // After the callbacks already queued; the daemon has let the process go.
            DispatchQueue.main.async { Glibc.exit(0) }
        })
        // Drains the main queue (`_dispatch_main_queue_callback_4CF`) and fires
        // timers; never returns empty while the main queue is its source.
        while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
    }

    /// One callback, as `DelegateApp` runs it on the simulated device.
    static func deliver(_ name: String, _ args: [String: String], to application: Application,
                        _ connection: LiveSystemConnection) {
        guard let delegate = application.applicationDelegate else { return }
        let callback = CallbackName(rawValue: name)
        switch callback {
        case .didFinishLaunching?:
            let cause = LaunchCause.allCases.first { "\($0)" == args["cause"] } ?? .user
            connection.launchCause = cause
            connection.launchNotification = args["notification"]
            _ = delegate.application(application, didFinishLaunchingWithOptions: cause == .user ? nil
                                        : LaunchOptions(cause: cause, localNotification: args["notification"]))
        case .didBecomeActive?: delegate.applicationDidBecomeActive(application)
        case .willResignActive?: delegate.applicationWillResignActive(application)
        case .didEnterBackground?: delegate.applicationDidEnterBackground(application)
        case .willEnterForeground?: delegate.applicationWillEnterForeground(application)
        case .willTerminate?: delegate.applicationWillTerminate(application)
        case .didReceiveMemoryWarning?: delegate.applicationDidReceiveMemoryWarning(application)
        case .backgroundTaskExpired?:
            if let id = args["id"].flatMap(Int.init), let handler = connection.takeExpirationHandler(id) { handler() }
        case .localNotification?, .notificationResponse?:
            let content = NotificationContent(title: args["title"] ?? "", body: args["body"] ?? "",
                                              badge: args["badge"].flatMap(Int.init))
            let identifier = args["identifier"] ?? ""
            if callback == .localNotification {
                application.present(notification: identifier, content: content)
            } else {
                application.open(notification: identifier, content: content)
            }
        case .bgTask?:
            let identifier = args["identifier"] ?? ""
            let task: BGTask
            switch args["kind"] {
            case "processing": task = BGProcessingTask(identifier: identifier, connection: connection)
            default: task = BGAppRefreshTask(identifier: identifier, connection: connection)
            }
            connection.started(task)
            connection.taskHandler(identifier)?(task)
        case .bgTaskExpired?:
            connection.runningTask(args["identifier"] ?? "")?.expirationHandler?()
        case .performFetch?:
            delegate.application(application, performFetchWithCompletionHandler: { result in
                connection.completeFetch(result)
            })
        case .didReceiveRemoteNotification?:
            let number = args["number"].flatMap(UInt32.init) ?? 0
            let aps: [String: Any] = args["type"] == "alert" ? ["alert": "", "sound": "default"] : ["content-available": 1]
            delegate.application(application, didReceiveRemoteNotification: ["aps": aps], fetchCompletionHandler: { result in
                connection.completeRemoteNotification(number: number, result: result)
            })
        case .didReceiveIncomingPush?: connection.locked { connection.voipPushHandler }?({})
        case .voipSocket?: connection.locked { connection.voipSocketHandler }?()
        case .keepAliveHandler?: connection.locked { connection.keepAliveHandler }?()
        case .didUpdateLocations?:
            if let service = LocationService(rawValue: args["service"] ?? "") {
                application.deliverServiceEvent(.didUpdateLocations(service), regionName: { _ in "" })
            }
        case .handleEventsForBackgroundURLSession?:
            let identifier = args["session"] ?? ""
            delegate.application(application, handleEventsForBackgroundURLSession: identifier, completionHandler: {
                connection.completeBackgroundSessionEvents(identifier: identifier)
            })
        case .urlSessionTaskDidComplete?:
            guard let task = args["task"].flatMap(Int32.init) else { return }
            let kind: TransferKind = args["kind"] == "upload" ? .upload : .download
            let results: [TransferResult] = [.success, .cancelled, .timedOut, .badServerResponse]
            let result = results.first { "\($0)" == args["result"] } ?? .success
            if let file = args["file"] { connection.downloadedFiles[task] = URL(fileURLWithPath: file) }
            connection.sessions[args["session"] ?? ""]?.deliver(task: Int(task), kind: kind, result: result)
            connection.downloadedFiles[task] = nil
        case .urlSessionDidFinishEvents?:
            if let session = connection.sessions[args["session"] ?? ""] {
                session.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
            }
        case .audioInterruptionBegan?:
            application.deliverServiceEvent(.audioInterruptionBegan, regionName: { _ in "" })
        case .didEnterRegion?, .didExitRegion?:
            // The region travels by name; BGXApp looks it up among the managers' monitored regions.
            let region = TextID(index: 0)
            application.deliverServiceEvent(callback == .didEnterRegion ? .didEnterRegion(region) : .didExitRegion(region),
                                            regionName: { _ in args["region"] ?? "" })
        case .accessoryDataAvailable?, .peripheralDidUpdateValue?, .accessoryDidDisconnect?, .didDisconnectPeripheral?:
            let transport: AccessoryTransport = args["transport"] == "bluetooth" ? .bluetooth : .accessory
            let data = callback == .accessoryDataAvailable || callback == .peripheralDidUpdateValue
            application.deliverServiceEvent(data ? .accessoryData(transport) : .accessoryDidDisconnect(transport),
                                            regionName: { _ in "" })
        case .performExpiringActivity?:
            guard let id = args["id"].flatMap(Int.init), let block = connection.activityBlock(id) else { return }
            block(args["expired"] == "true")
            // Either call's return ends the activity (the engine's rule): nothing calls it again.
            connection.endActivity(id)
        default:
            // URL-session events are not carried live yet.
            FileHandle.standardError.write(Data("bgx live: not yet supported: the callback \(name) in a live app\n".utf8))
        }
    }
}
