import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// Reads what a push carries: a background push's `userInfo`, and a VoIP push's `dictionaryPayload`.
final class PayloadReader: UIResponder, UIApplicationDelegate, PKPushRegistryDelegate {
    nonisolated static let journal = Journal()
    var registry: PKPushRegistry?
    let provider = CXProvider(configuration: CXProviderConfiguration())

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let registry = PKPushRegistry(queue: nil)
        registry.delegate = self
        registry.desiredPushTypes = [.voIP]
        self.registry = registry
        return true
    }

    func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        let aps = userInfo["aps"] as? [String: Any]
        Self.journal.write("remote content-available=\(aps?["content-available"] as? Int ?? -1) "
                           + "episode=\(userInfo["episode"] as? String ?? "none")")
        completionHandler(.newData)
    }

    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                      for type: PKPushType, completion: @escaping () -> Void) {
        Self.journal.write("voip caller=\(payload.dictionaryPayload["caller"] as? String ?? "none")")
        provider.reportNewIncomingCall(with: UUID(), update: CXCallUpdate()) { _ in }
        completion()
    }
}

/// Implements only PushKit's older delegate method, as some large messengers still do.
final class OldFormCaller: UIResponder, UIApplicationDelegate, PKPushRegistryDelegate {
    nonisolated static let journal = Journal()
    static var queue: DispatchQueue?
    var registry: PKPushRegistry?
    let provider = CXProvider(configuration: CXProviderConfiguration())

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let registry = PKPushRegistry(queue: Self.queue)
        registry.delegate = self
        registry.desiredPushTypes = [.voIP]
        self.registry = registry
        return true
    }

    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        if Self.queue != nil { dispatchPrecondition(condition: .notOnQueue(.main)) }
        Self.journal.write("token")
    }

    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType) {
        // On the registry's queue when it has one: off the main thread, where this would trap.
        if Self.queue != nil { dispatchPrecondition(condition: .notOnQueue(.main)) }
        Self.journal.write("old form")
        provider.reportNewIncomingCall(with: UUID(), update: CXCallUpdate()) { _ in }
    }
}

@Suite("BGXKit — push payloads and PushKit's delegate", .serialized)
struct PushPayloadTests {
    static let manifest = AppManifest(bundleIdentifier: "com.example.payloads", backgroundModes: [.remoteNotification, .voip])

    @Test("rules §7: a background push's userInfo reaches didReceiveRemoteNotification as sent; one sent without a payload gets the aps its type implies")
    func remoteNotificationUserInfo() {
        PayloadReader.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { PayloadReader() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(Push(type: .background, priority: 5), to: app,
                    userInfo: ["aps": ["content-available": 1], "episode": "Episode 42"])
        device.advance(seconds: 60)
        device.push(Push(type: .background, priority: 5), to: app)
        device.advance(seconds: 60)
        #expect(PayloadReader.journal.entries == ["remote content-available=1 episode=Episode 42",
                                                  "remote content-available=1 episode=none"])
    }

    @Test("rules §4: a VoIP push's payload is PKPushPayload.dictionaryPayload, also in the process it launches")
    func voipPayload() {
        PayloadReader.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { PayloadReader() }
        device.push(Push(type: .voip, priority: 10), to: app, userInfo: ["aps": [String: Any](), "caller": "Ada"])
        device.advance(seconds: 60)
        #expect(PayloadReader.journal.entries == ["voip caller=Ada"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") })
    }

    @Test("rules §4: a delegate with only the older pushRegistry(_:didReceiveIncomingPushWith:for:) gets it, reports the call and is not killed")
    func olderDelegateMethod() {
        OldFormCaller.journal.entries = []
        OldFormCaller.queue = nil
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { OldFormCaller() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(Push(type: .voip, priority: 10), to: app)
        device.advance(seconds: 60)
        #expect(OldFormCaller.journal.entries == ["token", "old form"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") }, "\(device.traceLines.filter { $0.contains("terminate") })")
    }

    @Test("rules §4: PKPushRegistry(queue:) calls its delegate on that queue, and the call it reports there counts")
    func registryQueue() {
        OldFormCaller.journal.entries = []
        OldFormCaller.queue = DispatchQueue(label: "com.example.voip")
        defer { OldFormCaller.queue = nil }
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { OldFormCaller() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 60)
        device.push(Push(type: .voip, priority: 10), to: app)
        device.advance(seconds: 60)
        #expect(OldFormCaller.journal.entries == ["token", "old form"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") }, "\(device.traceLines.filter { $0.contains("terminate") })")
    }

    @Test("The same pushes give the same trace, byte for byte")
    func deterministic() {
        func run() -> [String] {
            let device = SimulatedDevice()
            let app = device.install(Self.manifest) { PayloadReader() }
            device.push(Push(type: .voip, priority: 10), to: app, userInfo: ["caller": "Ada"])
            device.advance(seconds: 60)
            device.push(Push(type: .background, priority: 5), to: app, userInfo: ["episode": "1"])
            device.advance(seconds: 60)
            return device.traceLines
        }
        #expect(run() == run())
    }
}
