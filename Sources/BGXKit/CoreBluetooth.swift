import BGXApp
import Foundation

// Core Bluetooth's background parts under iOS's names, over BGXApp's
// `CentralManager` and `PeripheralManager` (the engine's Bluetooth service:
// with `bluetooth-central` / `bluetooth-peripheral` the connection stays up
// in the background, its events wake the app, and a manager made with a
// restore identifier has the system relaunch the app for them — with the
// identifiers in `UIApplication.LaunchOptionsKey.bluetoothCentrals` /
// `.bluetoothPeripherals` and the manager's `willRestoreState`).
//
// bgx simulates one peripheral near the device, which offers whatever
// services and characteristics the app looks for; what the bytes say is not
// simulated (a value arrives as empty `Data`). Managers are always
// `.poweredOn`.

public enum CBManagerState: Int, Sendable {
    case unknown = 0, resetting, unsupported, unauthorized, poweredOff, poweredOn
}
public enum CBPeripheralState: Int, Sendable { case disconnected = 0, connecting, connected, disconnecting }
public enum CBCharacteristicWriteType: Int, Sendable { case withResponse = 0, withoutResponse }

public let CBCentralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifierKey"
public let CBCentralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBPeripheralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifierKey"
public let CBPeripheralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBCentralManagerRestoredStatePeripheralsKey = "kCBRestoredPeripherals"
public let CBCentralManagerRestoredStateScanServicesKey = "kCBRestoredScanServices"
public let CBPeripheralManagerRestoredStateServicesKey = "kCBRestoredServices"
public let CBPeripheralManagerRestoredStateAdvertisementDataKey = "kCBRestoredAdvertisement"
public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"

public final class CBUUID: NSObject, @unchecked Sendable {
    public let uuidString: String
    public init(string: String) { uuidString = string.uppercased() }
    public convenience init(nsuuid: UUID) { self.init(string: nsuuid.uuidString) }
    public override var hash: Int { uuidString.hashValue }
    public override func isEqual(_ object: Any?) -> Bool { (object as? CBUUID)?.uuidString == uuidString }
    public override var description: String { uuidString }
}

public struct CBCharacteristicProperties: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let broadcast = Self(rawValue: 0x01), read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04), write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10), indicate = Self(rawValue: 0x20)
}

public struct CBAttributePermissions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let readable = Self(rawValue: 0x01), writeable = Self(rawValue: 0x02)
}

open class CBAttribute: NSObject {
    public let uuid: CBUUID
    init(uuid: CBUUID) { self.uuid = uuid }
}

open class CBService: CBAttribute {
    public internal(set) weak var peripheral: CBPeripheral?
    public let isPrimary: Bool
    public internal(set) var characteristics: [CBCharacteristic]?
    init(uuid: CBUUID, primary: Bool, peripheral: CBPeripheral?) {
        self.isPrimary = primary
        self.peripheral = peripheral
        super.init(uuid: uuid)
    }
}

public final class CBMutableService: CBService {
    public init(type: CBUUID, primary: Bool) { super.init(uuid: type, primary: primary, peripheral: nil) }
    public override var characteristics: [CBCharacteristic]? {
        get { super.characteristics }
        set { super.characteristics = newValue; newValue?.forEach { $0.service = self } }
    }
}

open class CBCharacteristic: CBAttribute {
    public internal(set) weak var service: CBService?
    public let properties: CBCharacteristicProperties
    public internal(set) var value: Data?
    public internal(set) var isNotifying = false
    init(uuid: CBUUID, properties: CBCharacteristicProperties, value: Data?, service: CBService?) {
        self.properties = properties
        self.value = value
        self.service = service
        super.init(uuid: uuid)
    }
}

public final class CBMutableCharacteristic: CBCharacteristic {
    public let permissions: CBAttributePermissions
    public init(type: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions) {
        self.permissions = permissions
        super.init(uuid: type, properties: properties, value: value, service: nil)
    }
}

open class CBPeer: NSObject {
    public let identifier: UUID
    init(identifier: UUID) { self.identifier = identifier }
}

public final class CBCentral: CBPeer {
    public var maximumUpdateValueLength: Int { 182 }
}

/// Every method optional, as in Core Bluetooth.
public protocol CBPeripheralDelegate: AnyObject {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
                    error: Error?)
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?)
}
extension CBPeripheralDelegate {
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {}
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {}
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {}
    public func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
                           error: Error?) {}
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {}
}

/// The peripheral near the device. It offers every service and
/// characteristic the app asks to discover; its answers come as jobs of the
/// app right after the call, as Core Bluetooth's come on the manager's queue.
public final class CBPeripheral: CBPeer {
    public let name: String?
    public internal(set) var state: CBPeripheralState = .disconnected
    public weak var delegate: CBPeripheralDelegate?
    public internal(set) var services: [CBService]?

    init(identifier: UUID, name: String?) {
        self.name = name
        super.init(identifier: identifier)
    }

    public func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        let found = (serviceUUIDs ?? []).map { uuid in
            services?.first { $0.uuid == uuid } ?? CBService(uuid: uuid, primary: true, peripheral: self)
        }
        services = found
        later { $0.delegate?.peripheral($0, didDiscoverServices: nil) }
    }

    public func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        service.characteristics = (characteristicUUIDs ?? []).map { uuid in
            service.characteristics?.first { $0.uuid == uuid }
                ?? CBCharacteristic(uuid: uuid, properties: [.read, .write, .notify], value: nil, service: service)
        }
        later { $0.delegate?.peripheral($0, didDiscoverCharacteristicsFor: service, error: nil) }
    }

    /// Subscribing is what makes the peripheral's updates reach the app.
    public func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        characteristic.isNotifying = enabled
        later { $0.delegate?.peripheral($0, didUpdateNotificationStateFor: characteristic, error: nil) }
    }

    public func readValue(for characteristic: CBCharacteristic) {
        characteristic.value = Data()
        later { $0.delegate?.peripheral($0, didUpdateValueFor: characteristic, error: nil) }
    }

    public func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        guard type == .withResponse else { return }
        later { $0.delegate?.peripheral($0, didWriteValueFor: characteristic, error: nil) }
    }

    /// The peripheral sent an update: every characteristic the app subscribed to hears it.
    func valueArrived() {
        for characteristic in (services ?? []).flatMap({ $0.characteristics ?? [] }) where characteristic.isNotifying {
            characteristic.value = Data()
            delegate?.peripheral(self, didUpdateValueFor: characteristic, error: nil)
        }
    }

    private func later(_ body: @escaping (CBPeripheral) -> Void) {
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in if let self { body(self) } }
    }

    /// The one peripheral bgx simulates, as each manager sees it.
    static let simulatedIdentifier = UUID(uuidString: "B6A0B1E0-0000-4000-8000-000000000001")!
    static let simulatedName = "bgx peripheral"
}

public protocol CBCentralManagerDelegate: AnyObject {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?)
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?)
}
/// Every method but `centralManagerDidUpdateState(_:)` is optional, as in Core Bluetooth.
extension CBCentralManagerDelegate {
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {}
    public func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                               advertisementData: [String: Any], rssi RSSI: NSNumber) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {}
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
                               error: Error?) {}
}

/// `CBCentralManager`. Made with `CBCentralManagerOptionRestoreIdentifierKey`,
/// its connection outlives the process: the system relaunches the app for the
/// peripheral's events, and the manager the new process makes with the same
/// identifier gets `willRestoreState` with the connected peripheral (its
/// services and subscriptions as they were) before any of them.
public class CBCentralManager: NSObject {
    public weak var delegate: CBCentralManagerDelegate?
    public let restoreIdentifier: String?
    public var state: CBManagerState { .poweredOn }
    public private(set) var isScanning = false
    private let bridge = CBCentralBridge()
    private var manager: CentralManager!
    private var peripheral: CBPeripheral?
    private var pendingRestore: [String: Any]?

    public init(delegate: CBCentralManagerDelegate?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        restoreIdentifier = options?[CBCentralManagerOptionRestoreIdentifierKey] as? String
        super.init()
        bridge.owner = self
        manager = CentralManager(delegate: bridge, restoreIdentifier: restoreIdentifier)
        let connection = Application.shared.connection
        if let restoreIdentifier, connection.restoreIdentifiers(peripheral: false).contains(restoreIdentifier) {
            let restored = Self.restoredPeripheral(restoreIdentifier, connection)
            restored.state = .connected
            peripheral = restored
            manager.connect(CBPeripheral.simulatedName)
            pendingRestore = [CBCentralManagerRestoredStatePeripheralsKey: [restored]]
        }
        connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            self.restoreIfPending()
            self.delegate?.centralManagerDidUpdateState(self)
        }
    }

    public convenience override init() { self.init(delegate: nil, queue: nil, options: nil) }

    /// Discovers the simulated peripheral at once.
    public func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        isScanning = true
        let found = peripheral ?? CBPeripheral(identifier: CBPeripheral.simulatedIdentifier, name: CBPeripheral.simulatedName)
        let advertisement: [String: Any] = [CBAdvertisementDataLocalNameKey: CBPeripheral.simulatedName,
                                            CBAdvertisementDataServiceUUIDsKey: serviceUUIDs ?? []]
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self, self.isScanning else { return }
            self.delegate?.centralManager(self, didDiscover: found, advertisementData: advertisement, rssi: -50)
        }
    }

    public func stopScan() { isScanning = false }

    /// Peripherals the app knew before (by identifier): each is the simulated one.
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
        identifiers.map { peripheral?.identifier == $0 ? peripheral! : CBPeripheral(identifier: $0, name: CBPeripheral.simulatedName) }
    }

    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] {
        peripheral.map { $0.state == .connected ? [$0] : [] } ?? []
    }

    public func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {
        self.peripheral = peripheral
        peripheral.state = .connected
        manager.connect(peripheral.name ?? CBPeripheral.simulatedName)
        if let restoreIdentifier {
            Application.shared.connection.setRestorationState(peripheral, for: restoreIdentifier, peripheral: false)
        }
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self, peripheral.state == .connected else { return }
            self.delegate?.centralManager(self, didConnect: peripheral)
        }
    }

    public func cancelPeripheralConnection(_ peripheral: CBPeripheral) {
        peripheral.state = .disconnected
        manager.cancelPeripheralConnection(peripheral.name ?? CBPeripheral.simulatedName)
        if let restoreIdentifier {
            Application.shared.connection.setRestorationState(nil, for: restoreIdentifier, peripheral: false)
        }
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            self.delegate?.centralManager(self, didDisconnectPeripheral: peripheral, error: nil)
        }
    }

    private func restoreIfPending() {
        guard let restore = pendingRestore else { return }
        pendingRestore = nil
        delegate?.centralManager(self, willRestoreState: restore)
    }

    func valueArrived() {
        restoreIfPending()
        peripheral?.valueArrived()
    }

    func disconnected() {
        restoreIfPending()
        guard let peripheral else { return }
        peripheral.state = .disconnected
        delegate?.centralManager(self, didDisconnectPeripheral: peripheral, error: nil)
    }

    /// What the system keeps of a restoring manager's peripheral: its
    /// identifier, and the services, characteristics and subscriptions the app
    /// set up (copied, as a new process gets new objects).
    static func restoredPeripheral(_ identifier: String, _ connection: SystemConnection) -> CBPeripheral {
        guard let old = connection.restorationState(for: identifier, peripheral: false) as? CBPeripheral else {
            return CBPeripheral(identifier: CBPeripheral.simulatedIdentifier, name: CBPeripheral.simulatedName)
        }
        let copy = CBPeripheral(identifier: old.identifier, name: old.name)
        copy.services = old.services?.map { service in
            let restored = CBService(uuid: service.uuid, primary: service.isPrimary, peripheral: copy)
            restored.characteristics = service.characteristics?.map { characteristic in
                let c = CBCharacteristic(uuid: characteristic.uuid, properties: characteristic.properties,
                                         value: characteristic.value, service: restored)
                c.isNotifying = characteristic.isNotifying
                return c
            }
            return restored
        }
        connection.setRestorationState(copy, for: identifier, peripheral: false)
        return copy
    }
}

final class CBCentralBridge: CentralManagerDelegate {
    weak var owner: CBCentralManager?
    func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String) { owner?.valueArrived() }
    func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: String) { owner?.disconnected() }
}

public enum CBATTError {
    public enum Code: Int, Sendable { case success = 0, invalidHandle, readNotPermitted, writeNotPermitted,
                                           invalidPdu, insufficientAuthentication, requestNotSupported }
}

/// A central's write to one of the app's characteristics.
public final class CBATTRequest: NSObject {
    public let central: CBCentral
    public let characteristic: CBCharacteristic
    public let offset: Int
    public var value: Data?
    init(central: CBCentral, characteristic: CBCharacteristic, value: Data?) {
        self.central = central
        self.characteristic = characteristic
        self.offset = 0
        self.value = value
    }
}

public protocol CBPeripheralManagerDelegate: AnyObject {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any])
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?)
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral,
                           didUnsubscribeFrom characteristic: CBCharacteristic)
}
/// Every method but `peripheralManagerDidUpdateState(_:)` is optional, as in Core Bluetooth.
extension CBPeripheralManagerDelegate {
    public func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {}
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral,
                                  didUnsubscribeFrom characteristic: CBCharacteristic) {}
}

/// `CBPeripheralManager`: the app publishes services a central (a watch, a
/// car) writes to. A write wakes the app with `didReceiveWrite` for each
/// writable characteristic it published; with a restore identifier the system
/// relaunches it for them and restores its services in `willRestoreState`.
public class CBPeripheralManager: NSObject {
    public weak var delegate: CBPeripheralManagerDelegate?
    public let restoreIdentifier: String?
    public var state: CBManagerState { .poweredOn }
    public var isAdvertising: Bool { manager.isAdvertising }
    public private(set) var services: [CBMutableService] = []
    private let bridge = CBPeripheralBridge()
    private var manager: PeripheralManager!
    private let central = CBCentral(identifier: UUID(uuidString: "B6A0B1E0-0000-4000-8000-000000000002")!)

    public init(delegate: CBPeripheralManagerDelegate?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        restoreIdentifier = options?[CBPeripheralManagerOptionRestoreIdentifierKey] as? String
        super.init()
        bridge.owner = self
        manager = PeripheralManager(delegate: bridge, restoreIdentifier: restoreIdentifier)
        let connection = Application.shared.connection
        var restore: [String: Any]?
        if let restoreIdentifier, connection.restoreIdentifiers(peripheral: true).contains(restoreIdentifier) {
            services = connection.restorationState(for: restoreIdentifier, peripheral: true) as? [CBMutableService] ?? []
            manager.startAdvertising()
            restore = [CBPeripheralManagerRestoredStateServicesKey: services]
        }
        connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            if let restore { self.delegate?.peripheralManager(self, willRestoreState: restore) }
            self.delegate?.peripheralManagerDidUpdateState(self)
        }
    }

    public func add(_ service: CBMutableService) {
        services.append(service)
        if let restoreIdentifier {
            Application.shared.connection.setRestorationState(services, for: restoreIdentifier, peripheral: true)
        }
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            self.delegate?.peripheralManager(self, didAdd: service, error: nil)
        }
    }

    public func removeAllServices() {
        services.removeAll()
        if let restoreIdentifier {
            Application.shared.connection.setRestorationState(nil, for: restoreIdentifier, peripheral: true)
        }
    }

    public func startAdvertising(_ advertisementData: [String: Any]?) {
        manager.startAdvertising()
        Application.shared.connection.asyncAfter(seconds: 0) { [weak self] in
            guard let self else { return }
            self.delegate?.peripheralManagerDidStartAdvertising(self, error: nil)
        }
    }

    public func stopAdvertising() { manager.stopAdvertising() }

    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {}

    /// Sending to subscribed centrals always has room in bgx.
    public func updateValue(_ value: Data, for characteristic: CBMutableCharacteristic,
                            onSubscribedCentrals centrals: [CBCentral]?) -> Bool { true }

    private var writable: [CBCharacteristic] {
        services.flatMap { $0.characteristics ?? [] }.filter { !$0.properties.isDisjoint(with: [.write, .writeWithoutResponse]) }
    }

    func writeArrived() {
        let requests = writable.map { CBATTRequest(central: central, characteristic: $0, value: Data()) }
        guard !requests.isEmpty else { return }
        delegate?.peripheralManager(self, didReceiveWrite: requests)
    }

    func centralLeft() {
        for characteristic in services.flatMap({ $0.characteristics ?? [] }) where characteristic.properties.contains(.notify) {
            delegate?.peripheralManager(self, central: central, didUnsubscribeFrom: characteristic)
        }
    }
}

final class CBPeripheralBridge: PeripheralManagerDelegate {
    weak var owner: CBPeripheralManager?
    func peripheralManagerDidReceiveWrite(_ peripheral: PeripheralManager) { owner?.writeArrived() }
    func peripheralManagerCentralDidDisconnect(_ peripheral: PeripheralManager) { owner?.centralLeft() }
}
