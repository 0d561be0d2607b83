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
        var app: AppID?
        var checked = false
        let id = install(manifest, delegate: { [unowned self] () -> ApplicationDelegate in
            let delegate = make()
            if !checked, let app {
                checked = true
                for warning in DelegateSpelling.warnings(for: type(of: delegate)) { log(app, warning) }
            }
            return UIKitDelegateBridge(delegate)
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
