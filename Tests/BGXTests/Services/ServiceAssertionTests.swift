import BGXApp
@testable import BGXCore
@testable import BGXSimulation
import BGXTestKit
import Testing

/// rules §4's long-running services hold an app in the background through
/// their own reasons in its assertion set — audio, background location
/// updates, a service event's run — set and cleared as their facts change;
/// suspension reads only the set.
@Suite struct ServiceAssertionTests {
    /// An app launched at 0 and sent home at `home` seconds.
    func launched(_ bundle: String, _ modes: Set<BackgroundMode>, then setUp: (inout Engine, AppID) -> Void = { _, _ in },
                  home: Int = 2) -> (ImmediateHost, AppID) {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.install(bundle, modes: modes)
        host.tell([(0, .user(.launch(app))), (home, .user(.home))])
        host.run(until: Time.seconds(1))
        setUp(&host.engine, app)
        return (host, app)
    }

    func holds(_ host: ImmediateHost, _ app: AppID, _ reason: BackgroundAssertions) -> Bool {
        host.engine.apps[Int(app.index)].assertions.contains(reason)
    }

    @Test("rules §4: an app playing audio holds the audio reason in the background until its playback ends, then is suspended")
    func audioHoldsUntilPlaybackEnds() {
        var (host, app) = launched("com.example.music", [.audio]) { engine, app in
            let started = engine.startAudio(for: app, duration: Time.seconds(60))
            #expect(started)
        }
        host.run(until: Time.seconds(59))
        #expect(host.engine.state(of: app) == .background)
        #expect(holds(host, app, .audio))
        #expect(host.engine.memoryControllerDump(of: app).keptRunningBy.contains("audio playing"))
        host.run(until: Time.seconds(61))
        #expect(host.engine.state(of: app) == .suspended)
        #expect(!holds(host, app, .audio))
    }

    @Test("rules §4: audio without the audio mode stops as the app leaves the front, and with it the reason: the app is suspended at once")
    func audioWithoutTheModeLetsGo() {
        var (host, app) = launched("com.example.game", []) { engine, app in
            let started = engine.startAudio(for: app, duration: nil)
            #expect(started)
        }
        #expect(holds(host, app, .audio))
        host.run(until: Time.seconds(3))
        #expect(host.engine.state(of: app) == .suspended && !holds(host, app, .audio))
    }

    @Test("rules §4: standard location updates hold the app only while it may receive them in the background; turning allowsBackgroundLocationUpdates off lets it go")
    func backgroundLocationHoldsWhileAllowed() {
        var (host, app) = launched("com.example.run", [.location]) { engine, app in
            engine.startLocation(for: app, .standard)
            #expect(!engine.apps[Int(app.index)].assertions.contains(.backgroundLocation))
            engine.setAllowsBackgroundLocationUpdates(for: app, true)
        }
        host.run(until: Time.minutes(10))
        #expect(host.engine.state(of: app) == .background && holds(host, app, .backgroundLocation))
        #expect(host.engine.memoryControllerDump(of: app).keptRunningBy == ["location updates"])
        host.engine.setAllowsBackgroundLocationUpdates(for: app, false)
        #expect(host.engine.state(of: app) == .suspended && !holds(host, app, .backgroundLocation))
    }

    @Test("rules §4: stopping standard updates clears the location reason and suspends the idle background app")
    func stoppingLocationLetsGo() {
        var (host, app) = launched("com.example.run", [.location]) { engine, app in
            engine.setAllowsBackgroundLocationUpdates(for: app, true)
            engine.startLocation(for: app, .standard)
        }
        host.run(until: Time.minutes(1))
        #expect(host.engine.state(of: app) == .background)
        host.engine.stopLocation(for: app, .standard)
        #expect(host.engine.state(of: app) == .suspended && !holds(host, app, .backgroundLocation))
    }

    /// A suspended `location` app monitoring significant changes; the device
    /// moves 600 m at 100 s (a fix that wakes it for 10 s), and `atRunEnd`
    /// is queued now, before that wake's end, for the moment its run ends.
    func wokenBySignificantChange(atRunEnd: EngineEvent) -> (ImmediateHost, AppID) {
        var (host, app) = launched("com.example.trips", [.location]) { engine, app in
            engine.startLocation(for: app, .significant)
        }
        host.tell([(100, .locationMove(meters: 600)), (110, atRunEnd)])
        host.run(until: Time.seconds(109))
        #expect(host.engine.state(of: app) == .background)
        #expect(holds(host, app, .serviceEvent))
        return (host, app)
    }

    @Test("rules §4: a service event's run is over as the clock reaches its end — an event queued earlier for that moment already finds the app idle")
    func serviceRunEndsWithTheClock() {
        var (host, app) = wokenBySignificantChange(atRunEnd: .locationMove(meters: 0))
        host.engine.step()                  // the earlier-queued move at 110 s, before the run's own end
        #expect(host.engine.now == Time.seconds(110))
        #expect(!holds(host, app, .serviceEvent))
        #expect(host.engine.jetsamBand(of: app) == .idleDeferred)
        #expect(host.engine.state(of: app) == .background)
        host.engine.step()                  // `serviceWakeEnd`: the idle app is suspended
        #expect(host.engine.state(of: app) == .suspended)
    }

    @Test("rules §4: letting time reach a run's end with nothing else happening ends the run too")
    func serviceRunEndsWhenTimePasses() {
        var (host, app) = wokenBySignificantChange(atRunEnd: .locationMove(meters: 0))
        host.engine.advanceClock(to: Time.seconds(110))
        #expect(!holds(host, app, .serviceEvent))
        #expect(host.engine.jetsamBand(of: app) == .idleDeferred)
    }

    @Test("debug builds catch a service that forgets to set or clear its reason: the set and the services' own state must agree")
    func forgottenClearIsCaught() {
        var (host, app) = launched("com.example.music", [.audio, .location]) { engine, app in
            _ = engine.startAudio(for: app, duration: nil)
            engine.setAllowsBackgroundLocationUpdates(for: app, true)
            engine.startLocation(for: app, .standard)
        }
        let i = Int(app.index)
        #expect(host.engine.assertionsMatchConcerns(i))
        // The controller's state changes, and the effects that would clear the reasons are dropped.
        var forgot = host.engine
        _ = forgot.services.audioStopped(app, reason: "stopped", forgot.serviceView(of: app))
        #expect(!forgot.assertionsMatchConcerns(i))
        forgot = host.engine
        _ = forgot.services.stopLocation(app, .standard, forgot.serviceView(of: app), settings: forgot.profile.longRunning)
        #expect(!forgot.assertionsMatchConcerns(i))
        forgot = host.engine
        _ = forgot.services.extendRun(app, runTime: Time.seconds(10), now: forgot.now, epoch: forgot.processEpoch(of: app))
        #expect(!forgot.assertionsMatchConcerns(i))
        host.run(until: Time.seconds(3))
        #expect(host.engine.assertionsMatchConcerns(i))
    }
}

/// The per-app counters that stay generations rather than tickets: what
/// they schedule belongs to the system, outlives the app's process, and
/// launches it again — a process's end must not make it stale.
@Suite struct GenerationsOutliveTheProcessTests {
    func launches(_ host: ImmediateHost, _ app: AppID, after time: Nanoseconds) -> [LaunchCause] {
        host.engine.trace.compactMap { event in
            guard event.app == app, event.time > time, case let .launch(cause) = event.kind else { return nil }
            return cause
        }
    }

    @Test("rules §7: a push held by the hourly throttle outlives the process — its retry at the throttle's end launches the terminated app")
    func heldPushRetryOutlivesTheProcess() {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.install("com.example.chat", modes: [.remoteNotification])
        let push = Push(type: .background, priority: 5)
        host.tell([(0, .user(.launch(app))), (2, .user(.home)),
                   (10, .push(app, push)), (20, .push(app, push)), (30, .push(app, push)), (40, .push(app, push))])
        let answer: (Directive, inout Engine) -> Void = { directive, engine in
            if case let .deliver(app, .remoteNotification(number, _)) = directive {
                engine.completeRemoteNotification(for: app, number: number, result: .newData)
            }
        }
        host.run(until: Time.seconds(100), answer)
        #expect(host.engine.pushes.apps[Int(app.index)].held != nil)
        host.engine.terminate(app, .memoryPressure, detail: "a system kill: not the user's")
        host.run(until: Time.seconds(10) + Time.hours(1) + Time.seconds(1), answer)
        #expect(launches(host, app, after: Time.seconds(100)) == [.silentPush])
        #expect(host.engine.pushes.apps[Int(app.index)].held == nil)
    }

    @Test("rules §4: a significant-change fix deferred by the once-per-5-minutes limit outlives the process — when due it relaunches the terminated app")
    func deferredSignificantChangeOutlivesTheProcess() {
        var host = ImmediateHost(Engine(profile: .modern))
        let app = host.install("com.example.trips", modes: [.location])
        host.tell([(0, .user(.launch(app))), (2, .user(.home)),
                   (10, .locationMove(meters: 600)), (60, .locationMove(meters: 600))])
        host.run(until: Time.seconds(1))
        host.engine.startLocation(for: app, .significant)
        host.run(until: Time.seconds(100))
        #expect(host.engine.services.apps[Int(app.index)].location.significantDeferred)
        host.engine.terminate(app, .memoryPressure, detail: "a system kill: not the user's")
        host.run(until: Time.seconds(311))
        #expect(launches(host, app, after: Time.seconds(100)) == [.location])
    }
}

/// The transfer daemon's wake for a session's events is the session's, not the process's.
@Suite struct TransferWakeOutlivesTheProcessTests {
    @Test("rules §8: a wake the relaunch rate limiter has scheduled outlives a system kill during its delay — it relaunches the app (cause transfer)")
    func rateLimitedWakeOutlivesTheProcess() {
        let journal = Journal()
        let (device, app) = podcastDevice { PodcastApp(journal: journal, downloads: [20 * megabyte]) }
        device.perform(.home)
        device.advance(seconds: 30)
        #expect(device.engine.transfers.sessions.first { $0.app == app }?.wakePending == true)
        device.withEngine { $0.terminate(app, .memoryPressure, detail: "jetsam (test)") }
        device.advance(seconds: 200)
        #expect(device.story(of: app, only: ["launch"]) == ["0 launch user", "70 launch transfer"])
        #expect(journal.entries.contains("didFinishEvents"))
    }
}
