#if canImport(UIKit)
import UIKit
#else
import BGXKit
#endif

/// The window scene's delegate: the person writes a note each time the
/// app is in front; when it leaves, the draft is saved within a background
/// task and the next sync is scheduled. It finds the process's store
/// through `UIApplication.shared.delegate`.
public final class FieldNotesSceneDelegate: UIResponder, UIWindowSceneDelegate {
    public var window: UIWindow?

    var appDelegate: FieldNotesAppDelegate? { UIApplication.shared.delegate as? FieldNotesAppDelegate }

    public func scene(_ scene: UIScene, willConnectTo session: UISceneSession,
                      options connectionOptions: UIScene.ConnectionOptions) {
        guard scene is UIWindowScene else { return }
        appDelegate?.store.record("willConnect")
    }

    public func sceneWillEnterForeground(_ scene: UIScene) { appDelegate?.store.record("willEnterForeground") }

    public func sceneDidBecomeActive(_ scene: UIScene) {
        guard let store = appDelegate?.store else { return }
        store.record("didBecomeActive")
        store.add("note \(store.count + 1)")
    }

    public func sceneWillResignActive(_ scene: UIScene) { appDelegate?.store.record("willResignActive") }

    public func sceneDidEnterBackground(_ scene: UIScene) {
        guard let appDelegate else { return }
        appDelegate.store.record("didEnterBackground")
        let application = UIApplication.shared
        let saving = application.beginBackgroundTask(withName: "save draft", expirationHandler: nil)
        appDelegate.store.record("draft saved")
        appDelegate.scheduleSync()
        application.endBackgroundTask(saving)
    }

    public func sceneDidDisconnect(_ scene: UIScene) { appDelegate?.store.record("didDisconnect") }
}
