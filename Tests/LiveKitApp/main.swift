import BGXApp
import BGXLiveApp
import Foundation

// A BGXApp app the live host's tests run as a real process through
// `LiveApplication.main`, as app code is written for the simulated device:
//   launching   plays audio (the `audio` mode), schedules a local notification
//               in 60 s, and makes a background URLSession — each answer
//               (and every refusal) written to `answers`
//   background  stops the audio, begins a background task and ends it 100 ms
//               later (a timer); and eight times at once on GCD's threads
//               (concurrentPerform, through `Application.shared`) begins and
//               ends a background task, writing `concurrent` and how many
//               distinct identifiers it got
//   push        completes a background push with newData after a chain
//               through GCD as iOS code uses it — main.asyncAfter, a global
//               queue, back to main.async, OperationQueue.main, a Timer, a
//               `@MainActor` task — writing each step and its thread to `gcd`

//
// With another word in `behaviour` beside it in the bundle it does something else:
//   region      monitors region `home` (100 m) as a user launch makes it, and
//               exits in the background; relaunched for a region event it
//               stays, and writes each launch's cause and each region event
//   activity    in the background runs two expiring activities: `flush`,
//               whose block returns after 50 ms, and `long`, whose block
//               works until its expired call (on another thread) tells it to stop
//   accessory   opens an external-accessory session; writes each data event
//   bluetooth   connects peripheral `heart-rate` as a Core Bluetooth central;
//               writes each value update

let bundle = ProcessInfo.processInfo.environment["BGX_BUNDLE_PATH"] ?? "."
/// Where it writes: its data container (the bundle is read-only to it, as on iOS).
let home = ProcessInfo.processInfo.environment["BGX_CONTAINER"] ?? bundle
let behaviour = (try? String(contentsOfFile: bundle + "/behaviour", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "normal"

final class KitAppDelegate: ApplicationDelegate, LocationManagerDelegate, AccessorySessionDelegate, CentralManagerDelegate {
    var answers: [String] = []
    let answersLock = NSLock()
    var task = BackgroundTaskIdentifier.invalid
    var player: AudioPlayer?
    var location: LocationManager?
    var session: AccessorySession?
    var central: CentralManager?
    var launchedByUser = true
    /// The GCD chain's steps (one at a time, each after the last).
    var steps: [String] = []
    func step(_ name: String) { steps.append("\(name) on \(thread)") }

    /// From any thread.
    func note(_ line: String) {
        answersLock.lock(); defer { answersLock.unlock() }
        answers.append(line)
        try? answers.joined(separator: "\n").write(toFile: home + "/answers", atomically: true, encoding: .utf8)
    }
    var thread: String { Thread.isMainThread ? "main" : "another thread" }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        switch behaviour {
        case "region":
            note("launched \(options.map { "\($0.cause)" } ?? "user")")
            launchedByUser = options == nil
            location = LocationManager()
            location?.delegate = self
            if options == nil { location?.startMonitoring(for: CircularRegion(identifier: "home", radius: 100)) }
            return true
        case "accessory":
            session = AccessorySession(protocolString: "com.example.sensor")
            session?.delegate = self
            return true
        case "bluetooth":
            central = CentralManager(delegate: self)
            central?.connect("heart-rate")
            return true
        case "activity": return true
        default: break
        }
        let session = AudioSession.sharedInstance()
        try? session.setCategory(.playback)
        player = AudioPlayer(session: session)
        note("audio \(player?.play() ?? false)")
        let content = UNMutableNotificationContent()
        content.title = "Reminder"
        UNUserNotificationCenter.current().add(UNNotificationRequest(
            identifier: "reminder", content: content, trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false)))
        _ = URLSession(configuration: .background(withIdentifier: "com.example.kit.upload"), delegate: nil)
        let connection = application.connection as! LiveSystemConnection
        note("refusals \(connection.refusals.joined(separator: "; "))")
        return true
    }

    func applicationDidEnterBackground(_ application: Application) {
        switch behaviour {
        case "region":
            if launchedByUser { application.exit() }
            return
        case "activity":
            ProcessInfo.processInfo.performExpiringActivity(withReason: "flush") { [self] expired in
                note("flush \(expired) on \(thread)")
                if !expired { Thread.sleep(forTimeInterval: 0.05) }
            }
            let stop = DispatchSemaphore(value: 0)
            ProcessInfo.processInfo.performExpiringActivity(withReason: "long") { [self] expired in
                note("long \(expired) on \(thread)")
                if expired {
                    stop.signal()
                    return
                }
                // Busy until told to stop (waiting on the work it does).
                stop.wait()
                note("long stopped")
            }
            return
        case "accessory", "bluetooth": return
        default: break
        }
        player?.stop()
        task = application.beginBackgroundTask(withName: "save") { [self] in application.endBackgroundTask(task) }
        Runtime.asyncAfter(seconds: 0.1) { [self] in application.endBackgroundTask(task) }
        let lock = NSLock()
        var ids: [Int] = []
        // `UIApplication.shared` on GCD's worker threads, as iOS code reaches it.
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let id = Application.shared.beginBackgroundTask(withName: "worker \(i)")
            lock.lock(); ids.append(id.rawValue); lock.unlock()
            Application.shared.endBackgroundTask(id)
        }
        note("concurrent \(Set(ids.filter { $0 != BackgroundTaskIdentifier.invalid.rawValue }).count)")
    }

    func application(_ application: Application, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                     fetchCompletionHandler completionHandler: @escaping (BackgroundFetchResult) -> Void) {
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) {
            self.step("main.asyncAfter")
            DispatchQueue.global(qos: .utility).async {
                self.step("global")
                DispatchQueue.main.async {
                    self.step("main.async")
                    OperationQueue.main.addOperation {
                        self.step("OperationQueue.main")
                        _ = Timer.scheduledTimer(withTimeInterval: 0.02, repeats: false) { _ in
                            self.step("Timer")
                            Task { @MainActor in
                                self.step("MainActor")
                                self.note("gcd " + self.steps.joined(separator: ", "))
                                completionHandler(.newData)
                            }
                        }
                    }
                }
            }
        }
    }
}

extension KitAppDelegate {
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {
        note("enter \(region.identifier) on \(thread)")
    }
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {
        note("exit \(region.identifier) on \(thread)")
    }
    func accessorySessionHasBytesAvailable(_ session: AccessorySession) { note("accessory data on \(thread)") }
    func centralManager(_ central: CentralManager, didUpdateValueForPeripheral peripheral: String) {
        note("bluetooth \(peripheral) on \(thread)")
    }
}

LiveApplication.main { KitAppDelegate() }
