import BGXCore
import BGXPlist
import Foundation

/// An app bundle on disk: a directory with an `Info.plist` and the
/// executable it names (`CFBundleExecutable`).
public struct AppBundle: Sendable, Codable {
    public var path: String
    public var manifest: AppManifest
    public var executable: String
    /// The Info.plist as read (the journal keeps it, so a restart installs the same app).
    public var infoPlist: Data

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public init(directory: String) throws {
        let dir = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard let data = FileManager.default.contents(atPath: dir + "/Info.plist") else {
            throw Invalid(description: "\(dir)/Info.plist: no Info.plist")
        }
        try self.init(directory: dir, infoPlist: data, checkExecutable: true)
    }

    /// A bundle from an Info.plist already read (a restart's journal): the
    /// executable is checked when it is launched, not here.
    public init(directory dir: String, infoPlist data: Data, checkExecutable: Bool = false) throws {
        let plistPath = dir + "/Info.plist"
        // What Foundation must not be handed: a binary plist with a set in it crashes it.
        if let problem = BinaryPropertyList.problem(in: data) { throw Invalid(description: "\(plistPath): not an Info.plist: \(problem)") }
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, format: nil) } catch {
            throw Invalid(description: "\(plistPath): not a property list")
        }
        guard let info = plist as? [String: Any] else { throw Invalid(description: "\(plistPath): not a dictionary") }
        guard let bundle = info["CFBundleIdentifier"] as? String, !bundle.isEmpty else {
            throw Invalid(description: "\(plistPath): no CFBundleIdentifier")
        }
        if let problem = BundleName.problem(with: bundle) {
            throw Invalid(description: "\(plistPath): CFBundleIdentifier is not a bundle identifier: \(problem)")
        }
        guard let name = info["CFBundleExecutable"] as? String, !name.isEmpty, !name.contains("/") else {
            throw Invalid(description: "\(plistPath): no CFBundleExecutable (a file name in the bundle)")
        }
        let executable = dir + "/" + name
        guard !checkExecutable || FileManager.default.isExecutableFile(atPath: executable) else {
            throw Invalid(description: "\(plistPath): CFBundleExecutable \(name) is not an executable file in the bundle")
        }
        var modes: Set<BackgroundMode> = []
        for word in info["UIBackgroundModes"] as? [String] ?? [] {
            guard let mode = BackgroundMode(rawValue: word) else {
                throw Invalid(description: "\(plistPath): unknown UIBackgroundModes value \(word)")
            }
            modes.insert(mode)
        }
        manifest = AppManifest(bundleIdentifier: bundle, backgroundModes: modes,
                               permittedTaskIdentifiers: info["BGTaskSchedulerPermittedIdentifiers"] as? [String] ?? [],
                               exitsOnSuspend: info["UIApplicationExitsOnSuspend"] as? Bool ?? false,
                               // The footprint is measured, not declared: the daemon reports the process's
                               // resident size to the engine as it runs (`LiveDaemon.noteResidentSize`).
                               memory: 0)
        self.path = dir
        self.executable = executable
        self.infoPlist = data
    }
}
