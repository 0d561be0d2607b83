// A calling app's background code, written as iOS code is written: PushKit
// registers for VoIP pushes at launch, and every push is reported to CallKit
// as an incoming call before the handler returns — except while the person
// has "Do Not Disturb" on, where this app keeps an old habit and drops the
// push quietly. iOS 13 and later kill an app for that, and stop delivering
// its VoIP pushes after repeated failures (`CallerExampleTests` shows both).
// The import block below is the only thing that differs between the iOS
// build and the bgx one.
#if canImport(UIKit)
import UIKit
import PushKit
import CallKit
#else
import BGXKit
#endif

/// Turns VoIP pushes into CallKit calls.
public final class CallCenter: NSObject, PKPushRegistryDelegate, CXProviderDelegate {
    public static let doNotDisturbKey = "doNotDisturb"

    let provider: CXProvider
    let registry: PKPushRegistry
    let defaults: UserDefaults
    /// Calls reported in this process, by UUID.
    public private(set) var reportedCalls: [UUID: Date] = [:]
    /// The token the app's server would send VoIP pushes to.
    public private(set) var voipToken: Data?

    public init(defaults: UserDefaults) {
        self.defaults = defaults
        let configuration = CXProviderConfiguration()
        configuration.supportsVideo = false
        configuration.maximumCallsPerCallGroup = 1
        configuration.supportedHandleTypes = [.generic]
        provider = CXProvider(configuration: configuration)
        registry = PKPushRegistry(queue: .main)
        super.init()
        provider.setDelegate(self, queue: nil)
        registry.delegate = self
        registry.desiredPushTypes = [.voIP]
    }

    // MARK: PKPushRegistryDelegate

    public func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials,
                             for type: PKPushType) {
        voipToken = pushCredentials.token
    }

    public func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                             for type: PKPushType, completion: @escaping () -> Void) {
        guard type == .voIP else { return completion() }
        if defaults.bool(forKey: Self.doNotDisturbKey) {
            // The pre-iOS 13 habit: ignore the push. iOS 13+ requires a
            // reported call for every VoIP push (report it, then end it).
            return completion()
        }
        let caller = payload.dictionaryPayload["caller"] as? String ?? "Unknown caller"
        let update = CXCallUpdate()
        update.remoteHandle = CXHandle(type: .generic, value: caller)
        update.localizedCallerName = caller
        update.hasVideo = false
        let call = UUID()
        provider.reportNewIncomingCall(with: call, update: update) { error in
            if error == nil { self.reportedCalls[call] = Date() }
            completion()
        }
    }

    // MARK: CXProviderDelegate

    public func providerDidReset(_ provider: CXProvider) {
        reportedCalls.removeAll()
    }

    public func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {
        action.fulfill()
    }

    public func provider(_ provider: CXProvider, perform action: CXEndCallAction) {
        reportedCalls[action.callUUID] = nil
        action.fulfill()
    }
}

/// Sets up the call center at launch, as PushKit requires: a VoIP push that
/// launches the app is handed over right after `didFinishLaunching`.
public final class CallerAppDelegate: UIResponder, UIApplicationDelegate {
    public private(set) var callCenter: CallCenter?
    let defaults: UserDefaults

    public init(defaults: UserDefaults = .standard) {
        self.defaults = defaults
        super.init()
    }

    public func application(_ application: UIApplication,
                            didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        callCenter = CallCenter(defaults: defaults)
        return true
    }
}
