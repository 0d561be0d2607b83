import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A heart-rate monitor's app, written as iOS code is: a central manager with
/// a restore identifier, discovery, a subscription, and state restoration.
final class HeartRateAppDelegate: UIResponder, UIApplicationDelegate, CBCentralManagerDelegate, CBPeripheralDelegate {
    nonisolated static let journal = Journal()
    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")
    var central: CBCentralManager?
    var monitor: CBPeripheral?
    var restored = false

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let centrals = launchOptions?[.bluetoothCentrals] as? [String]
        Self.journal.write("launch \(centrals.map { "centrals \($0)" } ?? "by the person")")
        central = CBCentralManager(delegate: self, queue: nil,
                                   options: [CBCentralManagerOptionRestoreIdentifierKey: "com.example.hr.central"])
        return true
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let peripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        let notifying = peripherals.flatMap { $0.services ?? [] }.flatMap { $0.characteristics ?? [] }.filter(\.isNotifying)
        Self.journal.write("restored \(peripherals.count) peripheral, \(notifying.count) subscription")
        monitor = peripherals.first
        monitor?.delegate = self
        restored = true
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn, !restored else { return }
        central.scanForPeripherals(withServices: [Self.heartRate])
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                        advertisementData: [String: Any], rssi RSSI: NSNumber) {
        central.stopScan()
        monitor = peripheral
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices([Self.heartRate])
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        for service in peripheral.services ?? [] where service.uuid == Self.heartRate {
            peripheral.discoverCharacteristics([Self.measurement], for: service)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for characteristic in service.characteristics ?? [] { peripheral.setNotifyValue(true, for: characteristic) }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
                    error: Error?) {
        Self.journal.write("subscribed to \(characteristic.uuid)")
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        Self.journal.write("measurement while \(UIApplication.shared.applicationState)")
    }
}

/// A watch companion: publishes a writable characteristic as a peripheral, with a restore identifier.
final class CompanionAppDelegate: UIResponder, UIApplicationDelegate, CBPeripheralManagerDelegate {
    nonisolated static let journal = Journal()
    var manager: CBPeripheralManager?
    var restored = false

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let peripherals = launchOptions?[.bluetoothPeripherals] as? [String]
        Self.journal.write("launch \(peripherals.map { "peripherals \($0)" } ?? "by the person")")
        manager = CBPeripheralManager(delegate: self, queue: nil,
                                      options: [CBPeripheralManagerOptionRestoreIdentifierKey: "com.example.companion"])
        return true
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        let services = dict[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] ?? []
        Self.journal.write("restored \(services.count) service")
        restored = true
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn, !restored else { return }
        let service = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        service.characteristics = [CBMutableCharacteristic(type: CBUUID(string: "FFF1"), properties: [.write],
                                                           value: nil, permissions: [.writeable])]
        peripheral.add(service)
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [service.uuid]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        Self.journal.write("write to \(requests.map(\.characteristic.uuid.uuidString)) while \(UIApplication.shared.applicationState)")
        for request in requests { peripheral.respond(to: request, withResult: .success) }
    }
}

/// An accessory's app: an `EASession` kept open in the background.
final class DashcamAppDelegate: UIResponder, UIApplicationDelegate, StreamDelegate {
    nonisolated static let journal = Journal()
    var session: EASession?
    var observer: NSObjectProtocol?

    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        let manager = EAAccessoryManager.shared()
        manager.registerForLocalNotifications()
        observer = NotificationCenter.default.addObserver(forName: .EAAccessoryDidDisconnect, object: manager, queue: nil) { note in
            let accessory = note.userInfo?[EAAccessoryKey] as? EAAccessory
            Self.journal.write("accessory \(accessory?.name ?? "?") disconnected")
        }
        guard let accessory = manager.connectedAccessories.first,
              let session = EASession(accessory: accessory, forProtocol: "com.example.dashcam") else { return true }
        session.inputStream?.delegate = self
        session.inputStream?.open()
        self.session = session
        return true
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        if eventCode == .hasBytesAvailable { Self.journal.write("bytes while \(UIApplication.shared.applicationState)") }
    }
}

@Suite("BGXKit — Core Bluetooth and External Accessory under iOS's names", .serialized)
struct CoreBluetoothTests {
    func data(_ device: SimulatedDevice, _ app: AppID, _ transport: AccessoryTransport) {
        device.schedule(.accessoryData(app, transport), at: device.now)
        device.run(until: device.now)
    }

    /// A device where the person launched the app, used it `inFront` seconds and went
    /// home; a minute later the peripheral or accessory sends data, and a minute passes.
    func appInBackgroundGetsData(_ manifest: AppManifest, over transport: AccessoryTransport, inFront: Double? = nil,
                                 _ make: @escaping () -> UIApplicationDelegate) -> (SimulatedDevice, AppID) {
        let device = SimulatedDevice()
        let app = device.install(manifest, delegate: make)
        device.perform(.launch(app))
        if let inFront { device.advance(seconds: inFront) }
        device.perform(.home)
        device.advance(seconds: 60)
        data(device, app, transport)
        device.advance(seconds: 60)
        return (device, app)
    }

    /// Memory pressure below any process's limit: jetsam ends the suspended app.
    func jetsam(_ device: SimulatedDevice, _ app: AppID) {
        device.change(.memory(1))
        device.change(.memory(DeviceState().memory))
        #expect(device.state(of: app) == .notRunning)
    }

    @Test("rules §4, §11: a central subscribed with bluetooth-central hears the peripheral while suspended; killed by the system, it is relaunched with its restore identifier in .bluetoothCentrals and willRestoreState brings back the subscription before the value arrives")
    func centralIsRestored() {
        HeartRateAppDelegate.journal.entries = []
        let (device, app) = appInBackgroundGetsData(AppManifest(bundleIdentifier: "com.example.hr", backgroundModes: [.bluetoothCentral]),
                                                    over: .bluetooth, inFront: 5) { HeartRateAppDelegate() }
        jetsam(device, app)
        data(device, app, .bluetooth)
        device.advance(seconds: 60)

        #expect(HeartRateAppDelegate.journal.entries == [
            "launch by the person", "subscribed to 2A37", "measurement while background",
            "launch centrals [\"com.example.hr.central\"]", "restored 1 peripheral, 1 subscription",
            "measurement while background",
        ])
        #expect(device.story(of: app, only: ["launch"]).last?.hasSuffix("launch") == true)
    }

    @Test("rules §4, §11: a peripheral manager with bluetooth-peripheral hears a central's write while suspended; killed by the system, it is relaunched with its restore identifier in .bluetoothPeripherals and willRestoreState brings back its service")
    func peripheralIsRestored() {
        CompanionAppDelegate.journal.entries = []
        let (device, app) = appInBackgroundGetsData(AppManifest(bundleIdentifier: "com.example.companion",
                                                                backgroundModes: [.bluetoothPeripheral]),
                                                    over: .bluetooth, inFront: 5) { CompanionAppDelegate() }
        jetsam(device, app)
        data(device, app, .bluetooth)
        device.advance(seconds: 60)
        #expect(CompanionAppDelegate.journal.entries == [
            "launch by the person", "write to [\"FFF1\"] while background",
            "launch peripherals [\"com.example.companion\"]", "restored 1 service",
            "write to [\"FFF1\"] while background",
        ])
    }

    @Test("rules §4: without bluetooth-central the connection drops when the app leaves the front; the peripheral's data does not reach it")
    func centralWithoutModeDisconnects() {
        HeartRateAppDelegate.journal.entries = []
        _ = appInBackgroundGetsData(AppManifest(bundleIdentifier: "com.example.hr"), over: .bluetooth, inFront: 5) {
            HeartRateAppDelegate()
        }
        #expect(HeartRateAppDelegate.journal.entries == ["launch by the person", "subscribed to 2A37"])
    }

    @Test("rules §4: an EASession kept open with external-accessory: the accessory's data reaches the input stream's delegate in the background")
    func accessoryDataReachesTheStream() {
        DashcamAppDelegate.journal.entries = []
        _ = appInBackgroundGetsData(AppManifest(bundleIdentifier: "com.example.dashcam", backgroundModes: [.externalAccessory]),
                                    over: .accessory) { DashcamAppDelegate() }
        #expect(DashcamAppDelegate.journal.entries == ["bytes while background"])
    }

    @Test("rules §4: without external-accessory the accessory disconnects when the app leaves the front: EAAccessoryDidDisconnect is posted and data no longer arrives")
    func accessoryWithoutModeDisconnects() {
        DashcamAppDelegate.journal.entries = []
        let (device, app) = appInBackgroundGetsData(AppManifest(bundleIdentifier: "com.example.dashcam"), over: .accessory) {
            DashcamAppDelegate()
        }
        device.perform(.launch(app))
        device.advance(seconds: 1)
        #expect(DashcamAppDelegate.journal.entries == ["accessory bgx accessory disconnected"])
    }
}
