import BGXApp
import Foundation

// External Accessory's background parts under iOS's names, over BGXApp's
// `AccessorySession` (the engine's accessory service: with
// `external-accessory` an open session stays up in the background and the
// accessory's data wakes the app; without, the accessory disconnects when the
// app leaves the front). bgx simulates one connected accessory, which speaks
// every protocol the app asks for; the bytes themselves are not simulated.

public let EAAccessoryKey = "EAAccessoryKey"

extension Notification.Name {
    public static let EAAccessoryDidConnect = Notification.Name("EAAccessoryDidConnectNotification")
    public static let EAAccessoryDidDisconnect = Notification.Name("EAAccessoryDidDisconnectNotification")
}

public protocol EAAccessoryDelegate: AnyObject {
    func accessoryDidDisconnect(_ accessory: EAAccessory)
}
extension EAAccessoryDelegate {
    public func accessoryDidDisconnect(_ accessory: EAAccessory) {}
}

public final class EAAccessory: NSObject {
    public let connectionID = 1
    public let name = "bgx accessory"
    public let manufacturer = "bgx"
    public let modelNumber = "1"
    public let serialNumber = "0001"
    public let firmwareRevision = "1.0"
    public let hardwareRevision = "1.0"
    public internal(set) var isConnected = true
    /// Every protocol the app declares: the simulated accessory speaks them all.
    public var protocolStrings: [String] {
        Bundle.main.object(forInfoDictionaryKey: "UISupportedExternalAccessoryProtocols") as? [String] ?? []
    }
    public weak var delegate: EAAccessoryDelegate?
}

/// `EAAccessoryManager.shared()`: the connected accessory, and its
/// connect/disconnect notifications once the app registers for them.
public final class EAAccessoryManager: NSObject {
    private let accessory = EAAccessory()
    private var registered = false

    /// One per process, as on iOS.
    public static func shared() -> EAAccessoryManager {
        let application = Application.shared
        if let made = application.sharedObjects[ObjectIdentifier(Self.self)] as? EAAccessoryManager { return made }
        let made = EAAccessoryManager()
        application.sharedObjects[ObjectIdentifier(Self.self)] = made
        return made
    }

    public var connectedAccessories: [EAAccessory] { accessory.isConnected ? [accessory] : [] }
    public func registerForLocalNotifications() { registered = true }
    public func unregisterForLocalNotifications() { registered = false }

    func disconnected() {
        guard accessory.isConnected else { return }
        accessory.isConnected = false
        accessory.delegate?.accessoryDidDisconnect(accessory)
        if registered {
            NotificationCenter.default.post(name: .EAAccessoryDidDisconnect, object: self,
                                            userInfo: [EAAccessoryKey: accessory])
        }
    }
}

/// `EASession(accessory:forProtocol:)`. Its streams are Foundation's; when
/// the accessory has data, the input stream's delegate hears
/// `.hasBytesAvailable` (wherever the app scheduled the stream).
public final class EASession: NSObject {
    public let accessory: EAAccessory?
    public let protocolString: String
    public let inputStream: InputStream?
    public let outputStream: OutputStream?
    private let session: AccessorySession
    private let bridge = EASessionBridge()

    public init?(accessory: EAAccessory, forProtocol protocolString: String) {
        guard accessory.isConnected else { return nil }
        self.accessory = accessory
        self.protocolString = protocolString
        inputStream = InputStream(data: Data())
        outputStream = OutputStream(toMemory: ())
        session = AccessorySession(protocolString: protocolString)
        super.init()
        bridge.owner = self
        session.delegate = bridge
    }

    func bytesArrived() {
        guard let inputStream else { return }
        inputStream.delegate?.stream(inputStream, handle: .hasBytesAvailable)
    }

    func disconnected() {
        EAAccessoryManager.shared().disconnected()
        if let inputStream { inputStream.delegate?.stream(inputStream, handle: .endEncountered) }
    }
}

final class EASessionBridge: AccessorySessionDelegate {
    weak var owner: EASession?
    func accessorySessionHasBytesAvailable(_ session: AccessorySession) { owner?.bytesArrived() }
    func accessoryDidDisconnect(_ session: AccessorySession) { owner?.disconnected() }
}
