import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// The app delegate of a scene-based app: writes every callback it gets.
final class ScenesAppDelegate: UIResponder, UIApplicationDelegate {
    nonisolated static let journal = Journal()
    static let refresh = "com.example.scenes.refresh"

    func application(_ application: UIApplication,
                     willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.journal.write("app willFinishLaunching")
        return true
    }
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        Self.journal.write("app didFinishLaunching")
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Self.refresh, using: .main) { task in
            Self.journal.write("refresh, connected scenes: \(UIApplication.shared.connectedScenes.count)")
            task.setTaskCompleted(success: true)
        }
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Self.refresh))
        for name in [UIScene.willConnectNotification, UIScene.willEnterForegroundNotification, UIScene.didActivateNotification,
                     UIScene.willDeactivateNotification, UIScene.didEnterBackgroundNotification,
                     UIScene.didDisconnectNotification, UIApplication.willEnterForegroundNotification,
                     UIApplication.didBecomeActiveNotification, UIApplication.willResignActiveNotification,
                     UIApplication.didEnterBackgroundNotification, UIApplication.willTerminateNotification] {
            // Observers outlive a test's processes (NotificationCenter.default is the host's): hear only
            // what this process posts (the notifications are posted in the posting process's app code).
            let thisProcess = ObjectIdentifier(application)
            _ = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard ObjectIdentifier(UIApplication.shared) == thisProcess else { return }
                Self.journal.write("  posted \(note.name.rawValue)")
            }
        }
        return true
    }
    func application(_ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
                     options: UIScene.ConnectionOptions) -> UISceneConfiguration {
        Self.journal.write("app configurationForConnecting \(connectingSceneSession.role.rawValue)")
        let configuration = UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
        configuration.delegateClass = ScenesSceneDelegate.self
        return configuration
    }
    func applicationDidBecomeActive(_ application: UIApplication) { Self.journal.write("app didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { Self.journal.write("app willResignActive") }
    func applicationDidEnterBackground(_ application: UIApplication) { Self.journal.write("app didEnterBackground") }
    func applicationWillEnterForeground(_ application: UIApplication) { Self.journal.write("app willEnterForeground") }
    func applicationWillTerminate(_ application: UIApplication) { Self.journal.write("app willTerminate") }
}

final class ScenesSceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions) {
        ScenesAppDelegate.journal.write("scene willConnectTo (window scene: \(scene is UIWindowScene), "
                                        + "connected: \(UIApplication.shared.connectedScenes.count))")
    }
    func sceneWillEnterForeground(_ scene: UIScene) { ScenesAppDelegate.journal.write("scene willEnterForeground") }
    func sceneDidBecomeActive(_ scene: UIScene) {
        ScenesAppDelegate.journal.write("scene didBecomeActive \(scene.activationState == .foregroundActive)")
    }
    func sceneWillResignActive(_ scene: UIScene) { ScenesAppDelegate.journal.write("scene willResignActive") }
    func sceneDidEnterBackground(_ scene: UIScene) {
        ScenesAppDelegate.journal.write("scene didEnterBackground \(scene.activationState == .background)")
    }
    func sceneDidDisconnect(_ scene: UIScene) { ScenesAppDelegate.journal.write("scene didDisconnect") }
}

/// An app without scenes, to check `UIApplication.shared.delegate` and the remote-control switch.
final class PlainDelegate: UIResponder, UIApplicationDelegate {
    nonisolated static let journal = Journal()
    func applicationDidBecomeActive(_ application: UIApplication) {
        Self.journal.write("delegate is self: \(UIApplication.shared.delegate === self), "
                           + "as? PlainDelegate: \(UIApplication.shared.delegate as? PlainDelegate != nil)")
        Self.journal.write("scenes: \(application.connectedScenes.count)")
        application.beginReceivingRemoteControlEvents()
        Self.journal.write("receiving remote control events: \(application.isReceivingRemoteControlEvents)")
        application.endReceivingRemoteControlEvents()
        Self.journal.write("after end: \(application.isReceivingRemoteControlEvents)")
    }
}

@Suite("BGXKit — scenes (UIWindowSceneDelegate) and UIApplication.shared.delegate", .serialized)
struct SceneLifecycleTests {
    static let manifest = AppManifest(bundleIdentifier: "com.example.scenes", backgroundModes: [.fetch],
                                      permittedTaskIdentifiers: [ScenesAppDelegate.refresh])

    @Test("With scenes, the foreground and the background go to the scene delegate, in iOS's order, each followed by the scene's and then the app's notification; the app delegate's lifecycle methods are never called")
    func sceneOrder() {
        ScenesAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest, delegate: { ScenesAppDelegate() }, sceneDelegate: { ScenesSceneDelegate() })
        device.perform(.launch(app))
        device.perform(.home)
        device.perform(.launch(app))
        #expect(ScenesAppDelegate.journal.entries == [
            "app willFinishLaunching", "app didFinishLaunching",
            "app configurationForConnecting UIWindowSceneSessionRoleApplication",
            "scene willConnectTo (window scene: true, connected: 1)",
            "  posted UISceneWillConnectNotification",
            "scene willEnterForeground", "  posted UISceneWillEnterForegroundNotification",
            "  posted UIApplicationWillEnterForegroundNotification",
            "scene didBecomeActive true", "  posted UISceneDidActivateNotification",
            "  posted UIApplicationDidBecomeActiveNotification",
            "scene willResignActive", "  posted UISceneWillDeactivateNotification",
            "  posted UIApplicationWillResignActiveNotification",
            "scene didEnterBackground true", "  posted UISceneDidEnterBackgroundNotification",
            "  posted UIApplicationDidEnterBackgroundNotification",
            "scene willEnterForeground", "  posted UISceneWillEnterForegroundNotification",
            "  posted UIApplicationWillEnterForegroundNotification",
            "scene didBecomeActive true", "  posted UISceneDidActivateNotification",
            "  posted UIApplicationDidBecomeActiveNotification",
        ])
    }

    @Test("A launch into the background connects no scene; the person opening the app then connects it")
    func backgroundLaunchHasNoScene() {
        ScenesAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest, delegate: { ScenesAppDelegate() }, sceneDelegate: { ScenesSceneDelegate() })
        device.perform(.launch(app))   // submits the refresh request
        device.perform(.home)
        device.change(.reboot)         // no process left; the request stays
        device.advance(seconds: 120)
        ScenesAppDelegate.journal.entries = []
        #expect(device.simulateLaunch(app, identifier: ScenesAppDelegate.refresh))
        device.advance(seconds: 10)
        device.perform(.launch(app))
        let entries = ScenesAppDelegate.journal.entries.filter { !$0.hasPrefix("  posted") }
        #expect(entries == [
            "app willFinishLaunching", "app didFinishLaunching", "refresh, connected scenes: 0",
            "app configurationForConnecting UIWindowSceneSessionRoleApplication",
            "scene willConnectTo (window scene: true, connected: 1)",
            "scene willEnterForeground", "scene didBecomeActive true",
        ])
    }

    @Test("Swiped away while running, a scene-based app's scene disconnects first; the app delegate still hears applicationWillTerminate, as on iOS")
    func terminationOrder() {
        ScenesAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest, delegate: { ScenesAppDelegate() }, sceneDelegate: { ScenesSceneDelegate() })
        device.perform(.launch(app))
        device.perform(.forceQuit(app))
        let entries = ScenesAppDelegate.journal.entries
        #expect(Array(entries.suffix(4)) == [
            "scene didDisconnect", "  posted UISceneDidDisconnectNotification",
            "app willTerminate", "  posted UIApplicationWillTerminateNotification",
        ], "\(entries)")
    }

    @Test("UIApplication.shared.delegate is the app's own delegate; an app without scenes has none connected; remote-control events are switched on and off")
    func sharedDelegate() {
        PlainDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(AppManifest(bundleIdentifier: "com.example.plain")) { PlainDelegate() }
        device.perform(.launch(app))
        #expect(PlainDelegate.journal.entries == [
            "delegate is self: true, as? PlainDelegate: true", "scenes: 0",
            "receiving remote control events: true", "after end: false",
        ])
    }

    @Test("The same run gives the same trace, byte for byte")
    func deterministic() {
        func run() -> [String] {
            let device = SimulatedDevice()
            let app = device.install(Self.manifest, delegate: { ScenesAppDelegate() }, sceneDelegate: { ScenesSceneDelegate() })
            device.perform(.launch(app))
            device.perform(.home)
            device.advance(seconds: 3_600)
            return device.traceLines
        }
        #expect(run() == run())
    }
}
