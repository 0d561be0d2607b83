import BGXCore
import Foundation

/// PushKit (rules §4): VoIP pushes reach the app through a `PKPushRegistry`
/// whose `desiredPushTypes` contains `.voIP`. On iOS 13+ the delegate must
/// report a call to CallKit (`CXProvider.reportNewIncomingCall`) before it
/// returns, or the app is terminated.
public struct PKPushType: Hashable, Sendable, RawRepresentable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let voIP = PKPushType(rawValue: "PKPushTypeVoIP")
}

public final class PKPushPayload {
    public let type: PKPushType
    public let dictionaryPayload: [AnyHashable: Any]
    init(type: PKPushType, dictionaryPayload: [AnyHashable: Any]) {
        self.type = type
        self.dictionaryPayload = dictionaryPayload
    }
}

public final class PKPushCredentials {
    public let type: PKPushType
    public let token: Data
    init(type: PKPushType, token: Data) {
        self.type = type
        self.token = token
    }
}

public protocol PKPushRegistryDelegate: AnyObject {
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                      for type: PKPushType, completion: @escaping @Sendable () -> Void)
    /// The form before iOS 11 (deprecated there, still in large apps): PushKit
    /// calls it when the delegate does not implement the `completion:` form.
    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload, for type: PKPushType)
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
}

extension PKPushRegistryDelegate {
    public func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials,
                             for type: PKPushType) {}
    /// Optional on iOS: without it PushKit calls the older form, and the
    /// push is done when that returns.
    public func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                             for type: PKPushType, completion: @escaping @Sendable () -> Void) {
        pushRegistry(registry, didReceiveIncomingPushWith: payload, for: type)
        completion()
    }
    /// Optional: a delegate with neither form reports no call, which iOS 13+ punishes.
    public func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                             for type: PKPushType) {}
    /// Never called: bgx does not invalidate push tokens.
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {}
}

/// Create it (with `desiredPushTypes`) while launching: a VoIP push is handed
/// over right after `didFinishLaunching`, and one that finds no registry
/// wanting it counts as a handler that reported no call.
public final class PKPushRegistry {
    /// Found when first used, in app code.
    lazy var connection: SystemConnection = Application.shared.connection
    public weak var delegate: PKPushRegistryDelegate?
    /// Where the delegate is called (nil: the main queue).
    let queue: DispatchQueue?

    public init(queue: DispatchQueue?) { self.queue = queue }

    /// Runs `call` on the registry's queue. The system's handler (a job of
    /// the main thread, whose end is when iOS checks that a call was
    /// reported) waits until it has returned, as PushKit's does.
    private func onQueue(_ call: @escaping () -> Void) {
        // On Linux each `DispatchQueue.main` is a new wrapper of the one main queue: compare labels.
        guard let queue, queue.label != DispatchQueue.main.label else { return call() }
        let returned = DispatchSemaphore(value: 0)
        queue.async {
            call()
            returned.signal()
        }
        returned.wait()
    }

    /// The token the registry last handed the delegate, once it has.
    public private(set) var tokenForVoIP: Data?
    public func pushToken(for type: PKPushType) -> Data? { type == .voIP ? tokenForVoIP : nil }

    public var desiredPushTypes: Set<PKPushType>? {
        didSet {
            guard desiredPushTypes?.contains(.voIP) == true else {
                connection.setVoIPPushHandler(nil)
                return
            }
            connection.setVoIPPushHandler { [weak self, connection] completion in
                guard let self else { return }
                let payload = PKPushPayload(type: .voIP,
                                            dictionaryPayload: connection.incomingPushPayload ?? ["aps": [String: Any]()])
                self.onQueue {
                    self.delegate?.pushRegistry(self, didReceiveIncomingPushWith: payload, for: .voIP) { completion() }
                }
            }
            let token = Data(Application.shared.bundleIdentifier.utf8.suffix(32))
            connection.asyncAfter(seconds: 0) { [weak self] in
                guard let self else { return }
                self.tokenForVoIP = token
                let credentials = PKPushCredentials(type: .voIP, token: token)
                self.onQueue { self.delegate?.pushRegistry(self, didUpdate: credentials, for: .voIP) }
            }
        }
    }
}

/// A socket the system watches for a suspended VoIP app (rules §4, the
/// legacy `NSStreamNetworkServiceTypeVoIP` stream): while it is open,
/// incoming data wakes the app and calls `delegate`.
public final class VoIPSocketStream {
    public enum Event: Sendable { case hasBytesAvailable }
    lazy var connection: SystemConnection = Application.shared.connection
    public var onEvent: ((Event) -> Void)?

    public init() {}

    public func open() {
        connection.setVoIPSocketHandler { [weak self] in self?.onEvent?(.hasBytesAvailable) }
    }
    public func close() { connection.setVoIPSocketHandler(nil) }
}
