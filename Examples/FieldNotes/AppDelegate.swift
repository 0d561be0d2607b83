// A notes app in the shape Xcode's templates have had since iOS 13: an app
// delegate for the process (task registration, notification authorization)
// and a scene delegate for the window's life (see SceneDelegate.swift).
// Notes are synced to the server by a BGAppRefreshTask; each sync tells the
// person in a local notification. Written in Swift 6 language mode.
#if canImport(UIKit)
import UIKit
import BackgroundTasks
import UserNotifications
#else
import BGXKit
#endif

public final class FieldNotesAppDelegate: UIResponder, UIApplicationDelegate {
    public static let syncIdentifier = "com.example.fieldnotes.sync"
    public let store: NoteStore
    let server: NotesServer

    public init(store: NoteStore = NoteStore(), server: NotesServer = NotesServer(latency: 4)) {
        self.store = store
        self.server = server
    }

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        store.record("didFinishLaunching")
        // On the main queue: the handler, made here, is the app delegate's, main-actor code.
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.syncIdentifier, using: .main) { task in
            self.sync(task)
        }
        let store = store
        UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound, .badge]) { granted, _ in
            store.record(granted ? "notifications allowed" : "notifications not allowed")
        }
        return true
    }

    public func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
                            options: UIScene.ConnectionOptions) -> UISceneConfiguration {
        store.record("configurationForConnecting")
        return UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
    }

    /// With scenes, UIKit calls the scene delegate instead: this never runs.
    public func applicationDidEnterBackground(_ application: UIApplication) {
        store.record("app delegate: didEnterBackground")
    }

    func scheduleSync() {
        let request = BGAppRefreshTaskRequest(identifier: Self.syncIdentifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 60 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }

    /// Uploads what the server lacks; the expiration handler cancels the upload.
    func sync(_ task: BGTask) {
        scheduleSync()
        let notes = store.unsynced()
        store.record("sync \(notes.count) (scenes: \(UIApplication.shared.connectedScenes.count))")
        let upload = Task { @MainActor in
            do {
                try await self.server.upload(notes)
                self.store.markSynced(notes.count)
                self.announce(synced: notes.count)
                task.setTaskCompleted(success: true)
            } catch {
                self.store.record("sync cut short")
                task.setTaskCompleted(success: false)
            }
        }
        task.expirationHandler = { upload.cancel() }
    }

    func announce(synced count: Int) {
        guard count > 0 else { return }
        let content = UNMutableNotificationContent()
        content.title = "Field Notes"
        content.body = count == 1 ? "1 note synced" : "\(count) notes synced"
        let center = UNUserNotificationCenter.current()
        center.add(UNNotificationRequest(identifier: "synced", content: content, trigger: nil))
        center.setBadgeCount(store.unsyncedCount)
    }
}
