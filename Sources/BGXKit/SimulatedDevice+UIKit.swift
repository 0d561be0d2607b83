import BGXApp
import BGXCore
import BGXSimulation

extension SimulatedDevice {
    /// Installs an app whose delegate is written against UIKit's
    /// `UIApplicationDelegate`; `make` creates a fresh delegate for every
    /// launch, as a new process would.
    @discardableResult
    public func install(_ manifest: AppManifest, delegate make: @escaping () -> UIApplicationDelegate) -> AppID {
        install(manifest, delegate: { () -> ApplicationDelegate in UIKitDelegateBridge(make()) })
    }

    /// Installs an app from its real Info.plist (`UIBackgroundModes`,
    /// `BGTaskSchedulerPermittedIdentifiers`, …).
    @discardableResult
    public func install(infoPlist path: String, delegate make: @escaping () -> UIApplicationDelegate) throws -> AppID {
        install(try InfoPlist.read(path), delegate: make)
    }
}
