import BGXApp
@testable import BGXCore
import BGXSimulation
import Foundation
import PropertyBased
import Testing

/// A random push app: a chat app (silent pushes, completing after a random
/// time or never) and a phone app (VoIP pushes, reporting the call or not),
/// under random pushes, user actions and device changes.
struct RandomPushRun {
    static let gaps: [Double] = [0, 1, 10, 29, 31, 300, 1200, 3600, 7200]

    var deviceGene: UInt64
    var actions: [UInt64]

    func run() -> (device: SimulatedDevice, chat: AppID, phone: AppID) {
        var d = deviceGene
        let profile = PolicyProfile.all[Int(d % 3)]; d /= 3
        var state = DeviceState()
        state.passcode = d % 2 == 0; d /= 2
        let completes = [Double?](arrayLiteral: 0, 2, 40, nil)[Int(d % 4)]; d /= 4
        let reports = d % 3 != 0; d /= 3
        let device = SimulatedDevice(profile: profile, device: state, seed: d)
        let chat = device.install(chatManifest, delegate: {
            completes.map { ChatApp(.completes(after: $0)) } ?? ChatApp(.forgets)
        })
        let phone = device.install(phoneManifest, delegate: { PhoneApp(reportsCalls: reports) })
        for action in actions {
            var a = action
            let kind = a % 16; a /= 16
            let app = a % 2 == 0 ? chat : phone; a /= 2
            let gap = Self.gaps[Int(a % UInt64(Self.gaps.count))]
            switch kind {
            case 0, 1: device.perform(.launch(app))
            case 2: device.perform(.home)
            case 3: device.perform(.lock)
            case 4: device.perform(.unlock)
            case 5: device.perform(.forceQuit(app))
            case 6: device.change(.reboot)
            case 7, 8: device.push(Push(type: .background, priority: 5), to: chat)
            case 9: device.push(Push(type: .background, priority: 10), to: chat)
            case 10: device.push(Push(type: .alert, priority: 10), to: app)
            case 11: device.push(Push(type: .voip, priority: 10), to: phone)
            case 12: device.change(.battery(a % 4 == 0 ? 15 : 80))
            case 13: device.change(.lowPowerMode(a % 3 == 0))
            case 14: device.change(.charging(a % 2 == 0))
            default: break
            }
            device.advance(seconds: gap)
        }
        device.advance(by: Time.hours(2))
        return (device, chat, phone)
    }
}

let pushRunGenerators = (
    device: Gen.uint64(in: 0...UInt64.max),
    actions: Gen.uint64(in: 0...UInt64.max).array(of: 1...60)
)

@Suite("Properties of pushes over random runs (rules §7, §4, §11)")
struct PushPropertyTests {

    @Test("rules §7/§11: no push launch while force-quit; no callback to a suspended app; a silent-push launch follows a priority-5 delivery; every drop has a reason")
    func pushRules() async {
        await propertyCheck(count: 300, input: pushRunGenerators.device, pushRunGenerators.actions) { deviceGene, actions in
            let (device, _, _) = RandomPushRun(deviceGene: deviceGene, actions: actions).run()
            let names = device.renderer.names
            var forceQuit: Set<AppID> = []
            var state: [AppID: ProcessState] = [:]
            var previous: [AppID: TraceEvent] = [:]
            for (n, event) in device.trace.enumerated() {
                if case let .device(property, _) = event.kind, names.text(property) == "reboot" { forceQuit.removeAll() }
                guard let app = event.app else { continue }
                switch event.kind {
                case .user(.forceQuit): forceQuit.insert(app)
                case .user(.launch), .user(.switchTo): forceQuit.remove(app)
                case let .state(_, to, _): state[app] = to
                case let .launch(cause):
                    // VoIP pushes launch a force-quit app (PushKit, iOS 8+).
                    if [.silentPush, .boot].contains(cause)
                        || (cause == .voipPush && !device.engine.profile.launchVoIPPushAfterForceQuit) {
                        #expect(!forceQuit.contains(app), "event \(n): launch \(cause) of a force-quit app")
                    }
                    if cause == .silentPush {
                        guard case let .pushDeliver(.background, priority, true)? = previous[app]?.kind else {
                            Issue.record("event \(n): a silentPush launch not preceded by its push.deliver")
                            break
                        }
                        #expect(priority == 5, "event \(n): a priority-\(priority) push launched the app")
                    }
                case let .callback(callback), let .callbackOnQueue(callback):
                    #expect((state[app] ?? .notRunning).isRunning, "event \(n): \(callback.name) while \(state[app] ?? .notRunning)")
                case let .pushDrop(_, _, reason, held):
                    let text = names.text(reason)
                    #expect(!text.isEmpty)
                    #expect(held == text.hasPrefix("held: "), "event \(n): \(text)")
                default: break
                }
                previous[app] = event
            }
        }
    }

    @Test("rules §7 [D]: at most silentPushesPerHour background pushes reach an app in the background within any hour")
    func throttleHolds() async {
        await propertyCheck(count: 300, input: pushRunGenerators.device, pushRunGenerators.actions) { deviceGene, actions in
            let (device, chat, _) = RandomPushRun(deviceGene: deviceGene, actions: actions).run()
            let limit = device.engine.profile.push.silentPushesPerHour
            var state = ProcessState.notRunning
            var userAt: Nanoseconds?
            var deliveries: [Nanoseconds] = []
            for event in device.trace {
                if case let .user(action) = event.kind, [.launch, .switchTo, .unlock].contains(action) { userAt = event.time }
                guard event.app == chat else { continue }
                switch event.kind {
                case let .state(_, to, _): state = to
                case .pushDeliver(.background, _, true):
                    // Delivered directly to the app in front, or held until the person opened it: not throttled.
                    if state.isForeground || userAt == event.time { continue }
                    deliveries.append(event.time)
                    let inHour = deliveries.filter { event.time - $0 < Time.hours(1) }.count
                    #expect(inHour <= limit, "t=\(Time.format(event.time)): \(inHour) background pushes within an hour")
                default: break
                }
            }
        }
    }

    @Test("rules §4 [D]: after voipReportFailureLimit kills for an unreported call, VoIP pushes are no longer delivered")
    func voipCutOff() async {
        await propertyCheck(count: 300, input: pushRunGenerators.device, pushRunGenerators.actions) { deviceGene, actions in
            let (device, _, phone) = RandomPushRun(deviceGene: deviceGene, actions: actions).run()
            let limit = device.engine.profile.push.voipReportFailureLimit
            var kills = 0
            for event in device.events(of: phone) {
                switch event.kind {
                case .terminate(.voipCallNotReported, _): kills += 1
                case .pushDeliver(.voip, _, _): #expect(kills < limit, "a VoIP push delivered after \(kills) kills")
                default: break
                }
            }
            #expect(kills <= limit)
            if !device.engine.profile.push.voipMustReportCall { #expect(kills == 0) }
        }
    }

    @Test("docs/scenarios.md `seed`: the same pushes and seed give a byte-identical trace")
    func deterministic() async {
        await propertyCheck(count: 100, input: pushRunGenerators.device, pushRunGenerators.actions) { deviceGene, actions in
            let run = RandomPushRun(deviceGene: deviceGene, actions: actions)
            #expect(run.run().device.traceLines == run.run().device.traceLines)
        }
    }
}
