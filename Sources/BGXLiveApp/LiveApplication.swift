import BGXApp
import BGXCore
import BGXLive
import Foundation
import Glibc

/// Runs an app's delegate as a real process under `bgx daemon`: the live
/// host's counterpart of the simulated device's app runtime. The daemon
/// started this process (`BGX_SOCKET`, `BGX_BUNDLE_IDENTIFIER`); each
/// callback it sends becomes the delegate method iOS would call, on this one
/// thread, and is acknowledged when that method returns. `asyncAfter` work
/// runs between callbacks when its moment comes — never while the process
/// is frozen, as on iOS.
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
        ProcessContext.$current.withValue(application) {
            application.attachDelegate(makeDelegate())
            run(application, connection)
        }
        Glibc.exit(0)
    }

    static func run(_ application: Application, _ connection: LiveSystemConnection) {
        let client = connection.client
        while true {
            let message: LiveMessage?
            do { message = try client.receive(until: connection.nextTimer) } catch { return }
            guard let message else {
                if client.isClosed { return }
                for body in connection.takeDueTimers() { body() }
                continue
            }
            guard message.type == "callback", let name = message.name else { continue }
            deliver(name, message.args ?? [:], to: application, connection)
            do { try client.acknowledge(message) } catch { return }
        }
    }

    /// One callback, as `DelegateApp` runs it on the simulated device.
    static func deliver(_ name: String, _ args: [String: String], to application: Application,
                        _ connection: LiveSystemConnection) {
        guard let delegate = application.delegate else { return }
        switch name {
        case "didFinishLaunching":
            let cause = LaunchCause.allCases.first { "\($0)" == args["cause"] } ?? .user
            connection.launchCause = cause
            connection.launchNotification = args["notification"]
            _ = delegate.application(application, didFinishLaunchingWithOptions: cause == .user ? nil
                                        : LaunchOptions(cause: cause, localNotification: args["notification"]))
        case "didBecomeActive": delegate.applicationDidBecomeActive(application)
        case "willResignActive": delegate.applicationWillResignActive(application)
        case "didEnterBackground": delegate.applicationDidEnterBackground(application)
        case "willEnterForeground": delegate.applicationWillEnterForeground(application)
        case "willTerminate": delegate.applicationWillTerminate(application)
        case "didReceiveMemoryWarning": delegate.applicationDidReceiveMemoryWarning(application)
        case "backgroundTaskExpired":
            if let id = args["id"].flatMap(Int.init), let handler = connection.expirationHandlers.removeValue(forKey: id) {
                handler()
            }
        case "localNotification", "notificationResponse":
            let content = NotificationContent(title: args["title"] ?? "", body: args["body"] ?? "",
                                              badge: args["badge"].flatMap(Int.init))
            let identifier = args["identifier"] ?? ""
            if name == "localNotification" {
                application.present(notification: identifier, content: content)
            } else {
                application.open(notification: identifier, content: content)
            }
        case "bgTask":
            let identifier = args["identifier"] ?? ""
            let task: BGTask
            switch args["kind"] {
            case "processing": task = BGProcessingTask(identifier: identifier, connection: connection)
            default: task = BGAppRefreshTask(identifier: identifier, connection: connection)
            }
            connection.runningTasks[identifier] = task
            connection.taskHandlers[identifier]?(task)
        case "bgTaskExpired":
            connection.runningTasks[args["identifier"] ?? ""]?.expirationHandler?()
        case "performFetch":
            delegate.application(application, performFetchWithCompletionHandler: { result in
                connection.completeFetch(result)
            })
        case "didReceiveRemoteNotification":
            let number = args["number"].flatMap(UInt32.init) ?? 0
            let aps: [String: Any] = args["type"] == "alert" ? ["alert": "", "sound": "default"] : ["content-available": 1]
            delegate.application(application, didReceiveRemoteNotification: ["aps": aps], fetchCompletionHandler: { result in
                connection.completeRemoteNotification(number: number, result: result)
            })
        case "didReceiveIncomingPush": connection.voipPushHandler?({})
        case "voipSocket": connection.voipSocketHandler?()
        case "keepAliveHandler": connection.keepAliveHandler?()
        case "didUpdateLocations":
            if let service = LocationService(rawValue: args["service"] ?? "") {
                application.deliverServiceEvent(.didUpdateLocations(service), regionName: { _ in "" })
            }
        case "handleEventsForBackgroundURLSession":
            let identifier = args["session"] ?? ""
            delegate.application(application, handleEventsForBackgroundURLSession: identifier, completionHandler: {
                connection.completeBackgroundSessionEvents(identifier: identifier)
            })
        case "urlSessionTaskDidComplete":
            guard let task = args["task"].flatMap(Int32.init) else { return }
            let kind: TransferKind = args["kind"] == "upload" ? .upload : .download
            let results: [TransferResult] = [.success, .cancelled, .timedOut, .badServerResponse]
            let result = results.first { "\($0)" == args["result"] } ?? .success
            if let file = args["file"] { connection.downloadedFiles[task] = URL(fileURLWithPath: file) }
            connection.sessions[args["session"] ?? ""]?.deliver(task: Int(task), kind: kind, result: result)
            connection.downloadedFiles[task] = nil
        case "urlSessionDidFinishEvents":
            if let session = connection.sessions[args["session"] ?? ""] {
                session.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
            }
        case "audioInterruptionBegan":
            application.deliverServiceEvent(.audioInterruptionBegan, regionName: { _ in "" })
        default:
            // Regions, accessories, URL sessions and expiring activities are not carried live yet.
            FileHandle.standardError.write(Data("bgx live: not yet supported: the callback \(name) in a live app\n".utf8))
        }
    }
}
