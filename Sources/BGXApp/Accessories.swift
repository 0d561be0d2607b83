import BGXCore
import Foundation

/// What an `EASession`'s streams and `EAAccessoryManager` notifications tell
/// the app. Every method has a default that does nothing.
public protocol AccessorySessionDelegate: AnyObject {
    /// The input stream's `hasBytesAvailable` event.
    func accessorySessionHasBytesAvailable(_ session: AccessorySession)
    /// `EAAccessoryDidDisconnect`.
    func accessoryDidDisconnect(_ session: AccessorySession)
}
extension AccessorySessionDelegate {
    public func accessorySessionHasBytesAvailable(_ session: AccessorySession) {}
    public func accessoryDidDisconnect(_ session: AccessorySession) {}
}

/// `EASession(accessory:forProtocol:)` to the connected accessory (rules §4).
/// With `external-accessory` it stays open in the background and data wakes
/// the app for ~10 s; without, the accessory disconnects when the app leaves
/// the front.
public final class AccessorySession {
    unowned let application: Application
    public let protocolString: String
    public weak var delegate: AccessorySessionDelegate?

    public init(protocolString: String, application: Application = .shared) {
        self.protocolString = protocolString
        self.application = application
        application.accessorySessions.append(self)
        application.connection.openAccessorySession(.accessory, restores: false)
    }

    public func close() {
        application.accessorySessions.removeAll { $0 === self }
        application.connection.closeAccessorySession(.accessory)
    }
}

/// `CBCentralManagerDelegate`, the part rules §4 needs.
public protocol CentralManagerDelegate: AnyObject {
    /// `peripheral(_:didUpdateValueFor:error:)` for a subscribed characteristic.
    func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String)
    func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: String)
}
extension CentralManagerDelegate {
    public func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String) {}
    public func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: String) {}
}

/// `CBCentralManager`. With a restore identifier
/// (`CBCentralManagerOptionRestoreIdentifierKey`) the system keeps the
/// connection after the app is terminated and relaunches it for its events
/// (launch cause `bluetooth`) — not after a user force-quit (QA1962).
public final class CentralManager {
    unowned let application: Application
    public weak var delegate: CentralManagerDelegate?
    public let restoreIdentifier: String?
    public private(set) var peripheral: String?

    public init(delegate: CentralManagerDelegate?, restoreIdentifier: String? = nil,
                application: Application = .shared) {
        self.delegate = delegate
        self.restoreIdentifier = restoreIdentifier
        self.application = application
        application.centralManagers.append(self)
    }

    public func connect(_ peripheral: String) {
        self.peripheral = peripheral
        application.connection.openAccessorySession(.bluetooth, restores: restoreIdentifier != nil)
        if let restoreIdentifier { application.connection.keepRestoreIdentifier(restoreIdentifier, peripheral: false, kept: true) }
    }

    public func cancelPeripheralConnection(_ peripheral: String) {
        self.peripheral = nil
        application.connection.closeAccessorySession(.bluetooth)
        if let restoreIdentifier { application.connection.keepRestoreIdentifier(restoreIdentifier, peripheral: false, kept: false) }
    }
}

/// `CBPeripheralManagerDelegate`, the part rules §4 needs.
public protocol PeripheralManagerDelegate: AnyObject {
    /// `peripheralManager(_:didReceiveWrite:)`: a central wrote to the app's service.
    func peripheralManagerDidReceiveWrite(_ peripheral: PeripheralManager)
    /// The central went away (its connection dropped).
    func peripheralManagerCentralDidDisconnect(_ peripheral: PeripheralManager)
}
extension PeripheralManagerDelegate {
    public func peripheralManagerDidReceiveWrite(_ peripheral: PeripheralManager) {}
    public func peripheralManagerCentralDidDisconnect(_ peripheral: PeripheralManager) {}
}

/// `CBPeripheralManager`: the app advertises a service that a central (a
/// watch, a car) talks to. `bluetooth-peripheral` keeps it reachable in the
/// background; a restore identifier lets the system relaunch it (QA1962).
public final class PeripheralManager {
    unowned let application: Application
    public weak var delegate: PeripheralManagerDelegate?
    public let restoreIdentifier: String?
    public private(set) var isAdvertising = false

    public init(delegate: PeripheralManagerDelegate?, restoreIdentifier: String? = nil,
                application: Application = .shared) {
        self.delegate = delegate
        self.restoreIdentifier = restoreIdentifier
        self.application = application
        application.peripheralManagers.append(self)
    }

    public func startAdvertising() {
        isAdvertising = true
        application.connection.openAccessorySession(.bluetooth, restores: restoreIdentifier != nil)
        if let restoreIdentifier { application.connection.keepRestoreIdentifier(restoreIdentifier, peripheral: true, kept: true) }
    }

    public func stopAdvertising() {
        isAdvertising = false
        application.connection.closeAccessorySession(.bluetooth)
        if let restoreIdentifier { application.connection.keepRestoreIdentifier(restoreIdentifier, peripheral: true, kept: false) }
    }
}

extension Application {
    /// Hands a long-running service's event to the objects the app created
    /// for it (called by the host; rules §4). With none, the event is lost —
    /// as on iOS when a relaunched app does not recreate its manager.
    public func deliverServiceEvent(_ callback: Callback, regionName: (TextID) -> String) {
        switch callback {
        case let .didUpdateLocations(service):
            for manager in locationManagers where service != .standard || manager.isUpdatingLocation {
                manager.delegate?.locationManager(manager, didUpdateLocations: [manager.location])
            }
        case let .didEnterRegion(id), let .didExitRegion(id):
            let name = regionName(id)
            for manager in locationManagers {
                let region = manager.monitoredRegions.first { $0.identifier == name } ?? CircularRegion(identifier: name)
                if case .didEnterRegion = callback {
                    manager.delegate?.locationManager(manager, didEnterRegion: region)
                } else {
                    manager.delegate?.locationManager(manager, didExitRegion: region)
                }
            }
        case let .accessoryData(transport), let .accessoryDidDisconnect(transport):
            let isData: Bool
            if case .accessoryData = callback { isData = true } else { isData = false }
            if transport == .accessory {
                for session in accessorySessions {
                    if isData { session.delegate?.accessorySessionHasBytesAvailable(session) }
                    else { session.delegate?.accessoryDidDisconnect(session) }
                }
            } else {
                for central in centralManagers {
                    guard let peripheral = central.peripheral else { continue }
                    if isData { central.delegate?.centralManager(central, didUpdateValueForPeripheral: peripheral) }
                    else { central.delegate?.centralManager(central, didDisconnectPeripheral: peripheral) }
                }
                for manager in peripheralManagers where manager.isAdvertising {
                    if isData { manager.delegate?.peripheralManagerDidReceiveWrite(manager) }
                    else { manager.delegate?.peripheralManagerCentralDidDisconnect(manager) }
                }
            }
        case .audioInterruptionBegan:
            audioSession.interruptionHandler?()
            // `AVAudioSession.interruptionNotification`, type `.began` (1), object the session.
            NotificationCenter.default.post(name: AudioSession.interruptionNotification, object: audioSession,
                                            userInfo: [AudioSession.interruptionTypeKey: UInt(1)])
        default:
            break
        }
    }
}
