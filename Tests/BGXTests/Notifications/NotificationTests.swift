import BGXApp
import BGXCore
import BGXSimulation
import Foundation
import Testing

/// A reminders app written against `UNUserNotificationCenter`: at launch it
/// becomes the center's delegate and adds its requests; it notes what the
/// system tells it, and answers `willPresent` with `presentation`.
final class RemindersApp: ApplicationDelegate, UNUserNotificationCenterDelegate {
    let requests: [UNNotificationRequest]
    let presentation: UNNotificationPresentationOptions
    let journal: Journal

    init(_ requests: [UNNotificationRequest], presentation: UNNotificationPresentationOptions = [],
         journal: Journal = Journal()) {
        self.requests = requests
        self.presentation = presentation
        self.journal = journal
    }

    /// `count` reminders one minute apart, added latest-first: r1 fires last.
    convenience init(latestFirst count: Int, journal: Journal) {
        self.init((1...count).map { reminder("r\($0)", after: Double(count + 1 - $0) * 60) }, journal: journal)
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let center = UNUserNotificationCenter.current()
        center.delegate = self
        if let options { journal.write("launched for \(options.cause) \(options.localNotification ?? "-")") }
        for request in requests { center.add(request) }
        center.getPendingNotificationRequests { self.journal.write("pending \($0.count)") }
        return true
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        journal.write("willPresent \(notification.request.identifier) \(notification.request.content.body)")
        completionHandler(presentation)
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping () -> Void) {
        journal.write("didReceive \(response.notification.request.identifier) while \(Application.shared.applicationState)")
        completionHandler()
    }
}

func reminder(_ id: String, after seconds: Double, repeats: Bool = false, body: String = "",
              sound: UNNotificationSound? = nil, badge: Int? = nil) -> UNNotificationRequest {
    let content = UNMutableNotificationContent()
    content.body = body
    content.sound = sound
    content.badge = badge.map { NSNumber(value: $0) }
    return UNNotificationRequest(identifier: id, content: content,
                                 trigger: UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: repeats))
}

func reminder(_ id: String, at components: DateComponents, repeats: Bool = false) -> UNNotificationRequest {
    UNNotificationRequest(identifier: id, content: UNMutableNotificationContent(),
                          trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: repeats))
}

extension SimulatedDevice {
    /// An app's events of some kinds as `"t kind field=value …"` (every field).
    func details(of app: AppID?, only kinds: Set<String>) -> [String] {
        let renderer = self.renderer
        return events(of: app).filter { kinds.contains($0.kindName) }.map { event in
            let fields = renderer.fields(of: event).map { name, value in
                switch value {
                case let .string(s): "\(name)=\(s)"
                case let .number(n): "\(name)=\(Time.format(Time.seconds(n)))"
                case let .bool(b): "\(name)=\(b)"
                }
            }
            return ([Time.format(event.time), event.kindName] + fields).joined(separator: " ")
        }
    }
}

/// 2026-01-05 00:00 UTC, a Monday in winter (Paris is UTC+1).
let winterMonday = Date(timeIntervalSince1970: 1_767_571_200)

func zone(_ name: String) -> TimeZoneRules {
    TimeZoneRules(TimeZone(identifier: name)!, from: winterMonday.addingTimeInterval(-86_400),
                  through: winterMonday.addingTimeInterval(400 * 86_400))
}

@Suite("rules §9 — local notifications")
struct NotificationTests {

    // MARK: The cap

    @Test("rules §9: modern keeps the 64 soonest-firing notifications and drops the rest (notification.drop)")
    func modernKeeps64Soonest() {
        let device = SimulatedDevice(profile: .modern)
        let journal = Journal()
        let app = device.install(manifest("com.example.reminders")) { RemindersApp(latestFirst: 70, journal: journal) }
        device.perform(.launch(app))

        #expect(journal.entries == ["pending 64"])
        // The six scheduled first fire last: they are the ones dropped, even
        // though they were scheduled before the others.
        #expect(device.story(of: app, only: ["notification.drop"]) == (1...6).map { "0 notification.drop r\($0)" })
        let kept = Set(device.engine.pendingNotifications(for: app).map(\.id))
        #expect(kept == Set((7...70).map { "r\($0)" }))
        #expect(device.traceLines.contains(
            #"{"t": 0, "app": "com.example.reminders", "kind": "notification.drop", "id": "r1", "reason": "only the 64 soonest-firing notifications of an app are kept"}"#))

        // The dropped ones never fire.
        device.perform(.home)
        device.advance(seconds: 80 * 60)
        let delivered = device.story(of: app, only: ["notification.deliver"])
        #expect(delivered.count == 64)
        #expect(!delivered.contains { $0.contains("r1 ") || $0.contains("r6 ") })
    }

    @Test("rules §9: ios12 keeps the 64 soonest-firing too")
    func ios12Keeps64Soonest() {
        let device = SimulatedDevice(profile: .ios12)
        let journal = Journal()
        let app = device.install(manifest("com.example.reminders")) { RemindersApp(latestFirst: 65, journal: journal) }
        device.perform(.launch(app))
        #expect(journal.entries == ["pending 64"])
        #expect(device.story(of: app, only: ["notification.drop"]) == ["0 notification.drop r1"])
    }

    @Test("rules §9: ios6 keeps 128 active and refuses the 129th request, whenever it would fire")
    func ios6Refuses129th() {
        let device = SimulatedDevice(profile: .ios6)
        let journal = Journal()
        let app = device.install(manifest("com.example.reminders")) { RemindersApp(latestFirst: 130, journal: journal) }
        device.perform(.launch(app))

        #expect(journal.entries == ["pending 128"])
        // r129 and r130 fire soonest, but they came after the 128th: refused.
        #expect(device.details(of: app, only: ["notification.drop"]) == [129, 130].map {
            "0 notification.drop id=r\($0) reason=the app already has 128 scheduled notifications: the new one is refused"
        })
        #expect(device.engine.pendingNotifications(for: app).first?.id == "r128")
    }

    @Test("rules §9: a repeating notification stays scheduled after it fires and keeps its place under the cap")
    func repeatingStaysScheduled() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.nag")) {
            RemindersApp([reminder("hourly", after: 3600, repeats: true), reminder("once", after: 1800)])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 2 * 3600 + 1)
        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "1800 notification.deliver once to user", "3600 notification.deliver hourly to user",
            "7200 notification.deliver hourly to user",
        ])
        #expect(device.engine.pendingNotifications(for: app).map(\.id) == ["hourly"])
        #expect(device.engine.pendingNotifications(for: app).first?.fireAt == Time.hours(3))
    }

    // MARK: To the app or to the user

    @Test("rules §9: a notification firing while its app is active in front goes to the app quietly (willPresent)")
    func deliveredToActiveApp() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([reminder("tea", after: 180, body: "Tea is ready", sound: .default, badge: 1)], journal: journal)
        }
        device.perform(.launch(app))
        device.advance(seconds: 200)

        #expect(device.story(of: app).suffix(2) == [
            "180 notification.deliver tea to app",
            "180 callback localNotification tea",
        ])
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "180 notification.deliver id=tea to=app alert=Tea is ready",
        ])
        #expect(journal.entries == ["pending 1", "willPresent tea Tea is ready"])
        #expect(device.engine.pendingNotifications(for: app).isEmpty)
        #expect(device.engine.badge(of: app) == 0)
        #expect(device.engine.deliveredNotifications(for: app).isEmpty)
    }

    @Test("rules §9: what willPresent asks for (banner, sound, badge) reaches the user as well")
    func willPresentOptionsReachTheUser() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([reminder("tea", after: 180, body: "Tea", sound: .default, badge: 2)],
                         presentation: [.banner, .sound, .badge])
        }
        device.perform(.launch(app))
        device.advance(seconds: 200)
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "180 notification.deliver id=tea to=app alert=Tea",
            "180 notification.deliver id=tea to=user alert=Tea sound=default badge=2",
        ])
        #expect(device.engine.badge(of: app) == 2)
        #expect(device.engine.deliveredNotifications(for: app).map(\.id) == ["tea"])
    }

    @Test("rules §9: otherwise — app in the background, suspended, not running, or another app in front, device locked — it goes to the user")
    func deliveredToUserOtherwise() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp([reminder("suspended", after: 100), reminder("other app in front", after: 300),
                          reminder("locked", after: 500), reminder("not running", after: 700)], journal: journal)
        }
        let other = device.install(manifest("com.example.other")) { PlainApp() }
        device.perform(.launch(app))
        device.perform(.home)                 // suspended at 100
        device.advance(seconds: 200)
        device.perform(.launch(app))
        device.perform(.launch(other))        // other app in front at 300
        device.advance(seconds: 200)
        device.perform(.launch(app))
        device.perform(.lock)                 // locked at 500
        device.advance(seconds: 200)
        device.perform(.forceQuit(app))       // not running at 700
        device.advance(seconds: 200)

        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "100 notification.deliver suspended to user",
            "300 notification.deliver other app in front to user",
            "500 notification.deliver locked to user",
            "700 notification.deliver not running to user",
        ])
        #expect(!device.story(of: app, only: ["callback"]).contains { $0.contains("localNotification") })
        #expect(!journal.entries.contains { $0.hasPrefix("willPresent") })
        #expect(device.engine.deliveredNotifications(for: app).map(\.id)
                == ["suspended", "other app in front", "locked", "not running"])
    }

    @Test("rules §9: without a notification-center delegate, the legacy didReceiveLocalNotification hears of it")
    func legacyDelegateMethod() {
        final class LegacyApp: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                UNUserNotificationCenter.current().add(reminder("tea", after: 60))
                return true
            }
            func application(_ application: Application, didReceiveLocalNotification identifier: String) {
                journal.write("received \(identifier) while \(application.applicationState)")
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) { LegacyApp(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 61)
        #expect(journal.entries == ["received tea while active"])
    }

    // MARK: Repeats and invalid triggers

    @Test("rules §9: a repeat under 60 s raises NSInternalInconsistencyException — the app is terminated; 60 s repeats every 60 s")
    func repeatIntervalMinimum() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.nag")) {
            RemindersApp([reminder("every minute", after: 60, repeats: true), reminder("every 59 s", after: 59, repeats: true),
                          reminder("after the crash", after: 60)], journal: journal)
        }
        device.perform(.launch(app))
        #expect(device.terminations(of: app).map(\.reason) == ["invalidNotificationTrigger"])
        #expect(device.terminations(of: app).first?.detail
                == "NSInternalInconsistencyException: time interval must be at least 60 if repeating")

        // What was added before the crash stays scheduled and repeats.
        device.advance(seconds: 200)
        #expect(device.story(of: app, only: ["notification.schedule", "notification.deliver"]) == [
            "0 notification.schedule every minute",
            "60 notification.deliver every minute to user",
            "120 notification.deliver every minute to user",
            "180 notification.deliver every minute to user",
        ])
    }

    @Test("rules §9: a time interval of 0 raises too; the engine throws for both")
    func zeroIntervalAndEngineErrors() throws {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.nag")) { RemindersApp([reminder("now", after: 0)]) }
        device.perform(.launch(app))
        #expect(device.terminations(of: app).first?.detail == "NSInternalInconsistencyException: time interval must be greater than 0")

        var engine = Engine()
        let other = engine.install(manifest("com.example.nag"))
        #expect(throws: NotificationError.repeatIntervalTooShort(minimum: Time.seconds(60))) {
            try engine.scheduleNotification(for: other, id: "n", trigger: .timeInterval(Time.seconds(59), repeats: true),
                                            content: NotificationContent())
        }
        #expect(engine.pendingNotifications(for: other).isEmpty)
        try engine.scheduleNotification(for: other, id: "n", trigger: .timeInterval(Time.seconds(60), repeats: true),
                                        content: NotificationContent())
        #expect(engine.pendingNotifications(for: other).map(\.id) == ["n"])
    }

    @Test("rules §9/§4: a time interval of Date.distantFuture is scheduled (and never fires), NaN raises like 0 — neither crashes the device")
    func extremeIntervals() {
        let device = SimulatedDevice()
        let far = device.install(manifest("com.example.far")) {
            RemindersApp([reminder("someday", after: Date.distantFuture.timeIntervalSinceNow)])
        }
        device.perform(.launch(far))
        #expect(device.engine.pendingNotifications(for: far).map(\.id) == ["someday"])
        let nan = device.install(manifest("com.example.nan")) { RemindersApp([reminder("nan", after: .nan)]) }
        device.perform(.launch(nan))
        #expect(device.terminations(of: nan).first?.detail == "NSInternalInconsistencyException: time interval must be greater than 0")

        final class KeepAliveApp: ApplicationDelegate {
            func applicationDidEnterBackground(_ application: Application) {
                _ = application.setKeepAliveTimeout(.infinity) {}
            }
        }
        let (voip, voipApp) = phoneDevice { KeepAliveApp() }
        voip.advance(seconds: 3600)
        #expect(voip.state(of: voipApp) == .suspended)
    }

    // MARK: Sound and badge

    @Test("rules §9: a bundled Linear PCM/MA4/µ-Law/a-Law sound under 30 s plays; anything else plays the default, with the reason")
    func soundFormats() {
        var m = manifest("com.example.sounds")
        m.sounds = [BundleSound(file: "chime.caf", format: .linearPCM), BundleSound(file: "bell.caf", format: .ima4),
                    BundleSound(file: "song.mp3", format: .mp3),
                    BundleSound(file: "long.caf", format: .alaw, length: Time.seconds(35))]
        let device = SimulatedDevice()
        let app = device.install(m) {
            RemindersApp([reminder("a", after: 60, sound: UNNotificationSound(named: "chime.caf")),
                          reminder("b", after: 120, sound: UNNotificationSound(named: UNNotificationSoundName("bell.caf"))),
                          reminder("c", after: 180, sound: UNNotificationSound(named: "song.mp3")),
                          reminder("d", after: 240, sound: UNNotificationSound(named: "long.caf")),
                          reminder("e", after: 300, sound: UNNotificationSound(named: "missing.caf")),
                          reminder("f", after: 360, sound: .default),
                          reminder("g", after: 420)])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 500)
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "60 notification.deliver id=a to=user sound=chime.caf",
            "120 notification.deliver id=b to=user sound=bell.caf",
            "180 notification.deliver id=c to=user sound=default reason='song.mp3' is MP3; alert sounds must be "
                + "Linear PCM, MA4 (IMA/ADPCM), µ-Law or a-Law: the default sound plays",
            "240 notification.deliver id=d to=user sound=default reason='long.caf' lasts 35s; alert sounds must be "
                + "shorter than 30s: the default sound plays",
            "300 notification.deliver id=e to=user sound=default reason=no sound file 'missing.caf' in the app's bundle "
                + "(it has chime.caf, bell.caf, song.mp3, long.caf): the default sound plays",
            "360 notification.deliver id=f to=user sound=default",
            "420 notification.deliver id=g to=user",
        ])
    }

    @Test("rules §9: delivered to the user, a notification's badge becomes the app icon's badge")
    func badge() {
        final class BadgeReader: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                if application.applicationIconBadgeNumber == 0 {
                    UNUserNotificationCenter.current().add(reminder("three", after: 60, badge: 3))
                    UNUserNotificationCenter.current().add(reminder("plain", after: 120))
                }
                journal.write("badge \(application.applicationIconBadgeNumber)")
                application.applicationIconBadgeNumber = 0   // seen: cleared, as apps do
                return true
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.inbox")) { BadgeReader(journal) }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))
        device.advance(seconds: 200)
        #expect(device.details(of: app, only: ["notification.deliver"]) == [
            "60 notification.deliver id=three to=user badge=3", "120 notification.deliver id=plain to=user",
        ])
        device.perform(.launch(app))
        #expect(journal.entries == ["badge 0", "badge 3"])
        #expect(device.engine.badge(of: app) == 0)
    }

    // MARK: Cancel, list, replace

    @Test("rules §9: cancel one or all (notification.cancel); list scheduled and delivered; the same identifier replaces")
    func cancelListReplace() {
        final class Manager: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                let center = UNUserNotificationCenter.current()
                for (id, after) in [("a", 60.0), ("b", 120), ("c", 180), ("d", 240)] {
                    center.add(reminder(id, after: after, body: "first \(id)"))
                }
                center.add(reminder("a", after: 300, body: "second a"))     // replaces a
                center.removePendingNotificationRequests(withIdentifiers: ["b", "nope"])
                center.getPendingNotificationRequests { requests in
                    self.journal.write(requests.map {
                        "\($0.identifier) \($0.content.body) \(($0.trigger as? UNTimeIntervalNotificationTrigger)?.timeInterval ?? -1)"
                    }.joined(separator: ", "))
                }
                Runtime.asyncAfter(seconds: 200) {
                    center.getDeliveredNotifications { self.journal.write("delivered \($0.map(\.request.identifier))") }
                    center.removeAllPendingNotificationRequests()
                    center.removeDeliveredNotifications(withIdentifiers: ["c"])
                    center.getDeliveredNotifications { self.journal.write("delivered \($0.map(\.request.identifier))") }
                }
                return true
            }
        }
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.list")) { Manager(journal) }
        device.perform(.launch(app))
        device.advance(seconds: 30)
        device.perform(.lock)
        device.advance(seconds: 170)
        device.perform(.launch(app))   // the asyncAfter runs once the app runs again
        device.advance(seconds: 400)

        #expect(journal.entries == ["c first c 180.0, d first d 240.0, a second a 300.0",
                                    "delivered [\"c\"]", "delivered []"])
        #expect(device.details(of: app, only: ["notification.schedule", "notification.cancel", "notification.deliver"]) == [
            "0 notification.schedule id=a fireIn=60", "0 notification.schedule id=b fireIn=120",
            "0 notification.schedule id=c fireIn=180", "0 notification.schedule id=d fireIn=240",
            "0 notification.schedule id=a fireIn=300 replaced=true", "0 notification.cancel id=b",
            "180 notification.deliver id=c to=user alert=first c",
            "200 notification.cancel id=d", "200 notification.cancel id=a",
        ])
    }

    // MARK: Tapping

    @Test("rules §9: tapping a delivered notification of an app not running launches it (cause notification, in the launch options), then didReceive")
    func tapLaunchesCold() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) {
            RemindersApp(journal.entries.isEmpty ? [reminder("tea", after: 60)] : [], journal: journal)
        }
        device.perform(.launch(app))
        device.perform(.forceQuit(app))
        device.perform(.lock)
        device.advance(seconds: 100)
        device.tapNotification("tea")

        #expect(Array(device.story(of: app).drop(while: { !$0.contains("user tapNotification") })) == [
            "100 user tapNotification", "100 notification.tap tea", "100 launch notification",
            "100 state notRunning→inactive (launch)", "100 callback didFinishLaunching",
            "100 state inactive→active (became active)", "100 callback didBecomeActive",
            "100 callback notificationResponse tea",
        ])
        #expect(journal.entries.suffix(3) == ["launched for notification tea", "pending 0", "didReceive tea while active"])
        #expect(device.engine.deliveredNotifications(for: app).isEmpty)
        #expect(!device.engine.isForceQuit(app))
    }

    @Test("rules §9: tapping one of a suspended app brings it to the front (no launch) and hands it the response")
    func tapActivatesWarm() {
        let device = SimulatedDevice()
        let journal = Journal()
        let app = device.install(manifest("com.example.timer")) { RemindersApp([reminder("tea", after: 60)], journal: journal) }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 100)
        device.tapNotification("tea")

        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user"])
        #expect(device.state(of: app) == .active)
        #expect(journal.entries == ["pending 1", "didReceive tea while active"])
    }

    @Test("rules §9: tapping a notification not in Notification Center is recorded with its reason and does nothing")
    func tapNothing() {
        let device = SimulatedDevice()
        let app = device.install(manifest("com.example.timer")) { RemindersApp([reminder("tea", after: 600)]) }
        device.perform(.launch(app))
        device.perform(.home)
        device.tapNotification("tea")
        device.advance(seconds: 700)
        device.tapNotification("tea")
        device.tapNotification("tea")   // opened already

        #expect(device.details(of: nil, only: ["notification.tap"]) == [
            "0 notification.tap id=tea reason='tea' has not fired yet: it is not in Notification Center",
            "700 notification.tap id=tea reason='tea' is not in Notification Center (never delivered to the user, "
                + "already opened, or removed)",
        ])
        #expect(device.story(of: app, only: ["notification.tap"]) == ["700 notification.tap tea"])
    }

    // MARK: Dates and time zones

    @Test("rules §9: 08:00 on the Europe/Paris clock comes an hour before 08:00 UTC (in January)")
    func calendarTimeZones() {
        let device = SimulatedDevice(startDate: winterMonday)
        let paris = TimeZone(identifier: "Europe/Paris")!, utc = TimeZone(identifier: "UTC")!
        let app = device.install(manifest("com.example.alarm")) {
            RemindersApp([reminder("paris", at: DateComponents(timeZone: paris, hour: 8, minute: 0)),
                          reminder("utc", at: DateComponents(timeZone: utc, hour: 8, minute: 0))])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(by: Time.days(1))
        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "25200 notification.deliver paris to user", "28800 notification.deliver utc to user",
        ])
    }

    @Test("rules §9: when the device's time zone changes, a floating date follows the new clock; a fixed-zone one keeps its moment")
    func floatingVersusFixed() {
        let device = SimulatedDevice(startDate: winterMonday)
        let app = device.install(manifest("com.example.alarm")) {
            RemindersApp([reminder("floating", at: DateComponents(hour: 8)),
                          reminder("fixed", at: DateComponents(timeZone: TimeZone(identifier: "UTC")!, hour: 8))])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(by: Time.hours(1))
        device.change(.timeZone(zone("America/New_York")))    // UTC−5: 08:00 there is 13:00 UTC
        device.advance(by: Time.days(1))
        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "28800 notification.deliver fixed to user", "46800 notification.deliver floating to user",
        ])
        #expect(device.story(of: nil, only: ["device"]).contains("3600 device timeZone=America/New_York"))
    }

    @Test("rules §9: a floating date the device's new clock has already passed is dropped with its reason")
    func floatingDatePassedByZoneChange() {
        let device = SimulatedDevice(startDate: winterMonday)
        let app = device.install(manifest("com.example.alarm")) {
            // 2026-01-05 12:00 on the device's clock (UTC): 12:00 UTC.
            RemindersApp([reminder("noon", at: DateComponents(year: 2026, month: 1, day: 5, hour: 12))])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(by: Time.hours(11))
        device.change(.timeZone(zone("Asia/Tokyo")))    // 11:00 UTC is 20:00 in Tokyo: noon has passed
        device.advance(by: Time.days(1))
        #expect(device.details(of: app, only: ["notification.drop", "notification.deliver"]) == [
            "39600 notification.drop id=noon reason=on the device's new clock (Asia/Tokyo) its date has passed: it would never fire",
        ])
        #expect(device.engine.pendingNotifications(for: app).isEmpty)
    }

    @Test("rules §9: a daily repeat follows the wall clock across a daylight-saving change")
    func dailyAcrossDaylightSaving() {
        // 2026-03-28 00:00 UTC; Paris moves to UTC+2 on 29 March at 01:00 UTC.
        let start = Date(timeIntervalSince1970: 1_774_656_000)
        var state = DeviceState()
        state.timeZone = TimeZoneRules(TimeZone(identifier: "Europe/Paris")!, from: start, through: start.addingTimeInterval(9e5))
        let device = SimulatedDevice(device: state, startDate: start)
        let app = device.install(manifest("com.example.alarm")) {
            RemindersApp([reminder("wake", at: DateComponents(hour: 8, minute: 0), repeats: true)])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(by: Time.days(3))
        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "25200 notification.deliver wake to user",               // 28 March, 07:00 UTC
            "108000 notification.deliver wake to user",              // 29 March, 06:00 UTC
            "194400 notification.deliver wake to user",              // 30 March, 06:00 UTC
        ])
    }

    @Test("rules §9: weekly by weekday; a date already past never fires and is dropped with its reason")
    func weeklyAndPast() {
        let device = SimulatedDevice(startDate: winterMonday)
        let app = device.install(manifest("com.example.alarm")) {
            RemindersApp([reminder("tuesdays", at: DateComponents(hour: 9, weekday: 3), repeats: true),
                          reminder("last year", at: DateComponents(year: 2025, month: 6, day: 1, hour: 9))])
        }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(by: Time.days(15))
        #expect(device.story(of: app, only: ["notification.deliver"]) == [
            "118800 notification.deliver tuesdays to user", "723600 notification.deliver tuesdays to user",
        ])
        #expect(device.details(of: app, only: ["notification.drop"]) == [
            "0 notification.drop id=last year reason=no moment after now matches its date: it would never fire",
        ])
    }

    @Test("rules §9: getPendingNotificationRequests gives back the calendar trigger, its zone and its next date")
    func pendingCalendarTrigger() {
        final class Lister: ApplicationDelegate {
            let journal: Journal
            init(_ journal: Journal) { self.journal = journal }
            func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
                let center = UNUserNotificationCenter.current()
                center.add(reminder("paris", at: DateComponents(timeZone: TimeZone(identifier: "Europe/Paris")!, hour: 8),
                                    repeats: true))
                center.getPendingNotificationRequests { requests in
                    for r in requests {
                        let t = r.trigger as? UNCalendarNotificationTrigger
                        let next = t?.nextTriggerDate().map { $0.timeIntervalSince(Runtime.now) } ?? -1
                        self.journal.write("\(r.identifier) \(t?.dateComponents.hour ?? -1) "
                                           + "\(t?.dateComponents.timeZone?.identifier ?? "-") \(t?.repeats ?? false) in \(next)")
                    }
                }
                return true
            }
        }
        let device = SimulatedDevice(startDate: winterMonday)
        let journal = Journal()
        device.install(manifest("com.example.alarm")) { Lister(journal) }
        device.perform(.launch(device.app("com.example.alarm")!))
        #expect(journal.entries == ["paris 8 Europe/Paris true in 25200.0"])  // 08:00 in Paris is 07:00 UTC
    }

    // MARK: The calendar arithmetic

    @Test("rules §9: civil dates round-trip and know their weekdays")
    func civilDates() {
        #expect(CivilDate(day: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(year: 2026, month: 1, day: 5).dayNumber == 20_458)
        #expect(CivilDate.weekday(ofDay: 20_458) == 2)   // a Monday
        #expect(CivilDate(year: 2024, month: 2, day: 29).dayNumber + 1 == CivilDate(year: 2024, month: 3, day: 1).dayNumber)
        for day in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            #expect(CivilDate(day: day).dayNumber == day)
        }
    }

    @Test("rules §9: unspecified components below the most specific one are 0; above it, any")
    func componentMatching() {
        let utc = TimeZoneRules.utc
        let monday = Int64(1_767_571_200)
        #expect(DateMatch(minute: 30).next(after: monday, in: utc) == monday + 1800)
        #expect(DateMatch(minute: 30).next(after: monday + 1800, in: utc) == monday + 5400)
        #expect(DateMatch(hour: 8).next(after: monday, in: utc) == monday + 8 * 3600)
        #expect(DateMatch(day: 1).next(after: monday, in: utc) == CivilDate(year: 2026, month: 2, day: 1).dayNumber * 86_400)
        #expect(DateMatch(hour: 25).next(after: monday, in: utc) == nil)
        #expect(DateMatch().next(after: monday, in: utc) == nil)
    }
}
