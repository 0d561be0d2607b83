import BGXApp
import BGXCore
import BGXSimulation

extension SimulatedDevice {
    /// Installs an app whose delegate is written against UIKit's
    /// `UIApplicationDelegate`; `make` creates a fresh delegate for every
    /// launch, as a new process would. The first launch names, in the trace,
    /// any method of the delegate's type that looks like a UIKit callback
    /// but is spelled like none (iOS would silently never call it).
    @discardableResult
    public func install(_ manifest: AppManifest, delegate make: @escaping () -> UIApplicationDelegate) -> AppID {
        install(manifest, delegate: make, sceneDelegate: nil)
    }

    /// Installs a scene-based app: `sceneDelegate` makes its scene delegate
    /// (what Info.plist's `UISceneDelegateClassName` names on iOS) when the
    /// app's scene connects, the first time the person opens it in a process.
    /// The scene delegate, not the app delegate, then hears of the
    /// foreground and the background.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate make: @escaping () -> UIApplicationDelegate,
                        sceneDelegate: (() -> UISceneDelegate)?) -> AppID {
        var app: AppID?
        var checked = false
        let id = install(manifest, delegate: { [unowned self] () -> ApplicationDelegate in
            let delegate = make()
            if !checked, let app {
                checked = true
                for warning in DelegateSpelling.warnings(for: type(of: delegate)) { log(app, warning) }
            }
            let bridge = UIKitDelegateBridge(delegate, sceneDelegate: sceneDelegate)
            if let app { bridge.log = { [unowned self] in log(app, $0) } }
            return bridge
        })
        app = id
        return id
    }

    /// Installs an app from its real Info.plist (`UIBackgroundModes`,
    /// `BGTaskSchedulerPermittedIdentifiers`, …).
    @discardableResult
    public func install(infoPlist path: String, delegate make: @escaping () -> UIApplicationDelegate) throws -> AppID {
        install(try InfoPlist.read(path), delegate: make)
    }
}
