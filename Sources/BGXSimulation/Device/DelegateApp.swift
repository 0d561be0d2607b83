import BGXApp
import BGXCore
import Foundation

/// The program of a process whose code is still being created.
final class LaunchingApp: HostedApp {
    func handle(_ callback: Callback, process: AppRuntime) -> Bool { true }
}

/// Runs an `ApplicationDelegate` as iOS would.
final class DelegateApp: HostedApp {
    let delegate: ApplicationDelegate
    init(_ delegate: ApplicationDelegate) { self.delegate = delegate }

    func handle(_ callback: Callback, process: AppRuntime) -> Bool {
        let application = process.application
        switch callback {
        case let .didFinishLaunching(cause):
            _ = delegate.application(application, didFinishLaunchingWithOptions: cause == .user ? nil
                                        : LaunchOptions(cause: cause, localNotification: process.launchNotification))
        case .didBecomeActive: delegate.applicationDidBecomeActive(application)
        case .willResignActive: delegate.applicationWillResignActive(application)
        case .didEnterBackground: delegate.applicationDidEnterBackground(application)
        case .willEnterForeground: delegate.applicationWillEnterForeground(application)
        case .willTerminate: delegate.applicationWillTerminate(application)
        case let .backgroundTaskExpired(id): return process.runExpirationHandler(id)
        case let .localNotification(id):
            let n = process.notification(id)
            application.present(notification: n.name, content: n.content)
        case let .notificationResponse(id):
            let n = process.notification(id)
            application.open(notification: n.name, content: n.content)
        case let .bgTask(id):
            let task = process.task(for: id, handingOver: true)
            // A continued-processing task runs the handler registered for its wildcard form.
            let registered = process.device.withEngine { $0.launchHandlerIdentifier(for: process.app, identifier: task.identifier) }
            process.taskHandlers[registered]?(task)
        case let .bgTaskExpired(id):
            process.task(for: id).expirationHandler?()
        case .performFetch:
            delegate.application(application, performFetchWithCompletionHandler: { [weak process] result in
                process?.completeFetch(result)
            })
        case .didReceiveMemoryWarning: delegate.applicationDidReceiveMemoryWarning(application)
        case .socketsClosed: process.deliverClosedSockets()
        case .didUpdateLocations, .didEnterRegion, .didExitRegion, .accessoryData, .accessoryDidDisconnect,
             .audioInterruptionBegan:
            application.deliverServiceEvent(callback, regionName: { id in process.device.withEngine { $0.text(id) } })
        case let .handleEventsForBackgroundURLSession(id):
            let identifier = process.device.withEngine { $0.text(id) }
            delegate.application(application, handleEventsForBackgroundURLSession: identifier,
                                 completionHandler: { [weak process] in
                process?.completeBackgroundSessionEvents(identifier: identifier)
            })
        case let .urlSessionTaskDidComplete(id, task, kind, result):
            let identifier = process.device.withEngine { $0.text(id) }
            process.urlSessions[identifier]?.deliver(task: Int(task), kind: kind, result: result)
        case let .urlSessionDidFinishEvents(id):
            let identifier = process.device.withEngine { $0.text(id) }
            if let session = process.urlSessions[identifier] {
                session.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
            }
        case let .remoteNotification(number, type):
            let payload = process.device.withEngine { $0.remoteNotificationPayload(for: process.app, number: number) }
            delegate.application(application, didReceiveRemoteNotification: process.device.pushPayload(payload, type: type),
                                 fetchCompletionHandler: { [weak process] result in
                process?.completeRemoteNotification(number: number, result: result)
            })
        case let .voipPush(number):
            let payload = process.device.withEngine { $0.takeVoIPPushPayload(for: process.app, number: number) }
            process.incomingPushPayload = process.device.pushPayload(payload, type: .voip)
            defer { process.incomingPushPayload = nil }
            process.voipPushHandler?({})
        case .voipSocket:
            process.voipSocketHandler?()
        case .keepAlive:
            process.keepAliveHandler?()
        case let .expiringActivity(id, expired):
            let block = expired ? process.activityBlocks.removeValue(forKey: id) : process.activityBlocks[id]
            block?(expired)
        }
        return true
    }
}
