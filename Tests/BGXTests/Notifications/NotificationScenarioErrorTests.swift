import BGXCore
import BGXSimulation
import Foundation
import Testing

/// rules §9 vocabulary: `notify` {id, after | at, repeat, body, sound, badge,
/// timeZone}, an app's `sounds:`, `device: {timeZone}`, `user:
/// tapNotification ID` — bad values are `error: FILE:LINE:COLUMN: message`.
@Suite("rules §9 — notification scenario errors")
struct NotificationScenarioErrorTests {
    func error(_ yaml: String) -> ScenarioError? { ScenarioErrorTests().error(yaml) }

    func notify(_ arguments: String, app extra: String = "") -> String {
        "apps:\n  - bundle: a\n\(extra)    on:\n      didFinishLaunching:\n        - notify: {id: n, \(arguments)}\n"
    }

    @Test("rules §9: a repeat under 60 s is an error where the interval is written, as iOS raises")
    func repeatUnder60s() {
        let e = error(notify("after: 30s, repeat: true"))
        #expect(e?.location == SourceLocation(file: "bad.yaml", line: 5, column: 34))
        #expect(e?.message == "after: a repeating notification's interval must be at least 1m "
                + "(iOS raises 'time interval must be at least 60 if repeating')")
        #expect(error(notify("after: 60s, repeat: true")) == nil)
        #expect(error(notify("after: 0s"))?.message == "after: time interval must be greater than 0 (UNTimeIntervalNotificationTrigger); "
                + "to post at once, leave out 'after' and 'at' (a request with no trigger)")
        #expect(error(notify("after: 1m, repeat: 2h"))?.message == "repeat must be true or false, got '2h'")
    }

    @Test("rules §9: 'at' takes HH:MM, Mon HH:MM, Nd HH:MM or a duration; only clock times repeat")
    func atForms() {
        #expect(error(notify("at: \"08:00\", repeat: true")) == nil)
        #expect(error(notify("at: \"Mon 08:00\", repeat: true")) == nil)
        #expect(error(notify("at: \"2d 08:00\"")) == nil)
        #expect(error(notify("at: 90m")) == nil)
        #expect(error(notify("at: \"Mno 08:00\""))?.message == "at: unknown day 'Mno'; did you mean 'Mon'?")
        #expect(error(notify("at: \"2d 08:00\", repeat: true"))?.message.hasPrefix("at: a date repeats never") == true)
        #expect(error(notify("at: 90m, repeat: true"))?.message.hasPrefix("at: a moment repeats never") == true)
        #expect(error(notify("at: 90m, timeZone: UTC"))?.message.contains("timeZone has no meaning") == true)
        #expect(error(notify("at: soon"))?.message.hasPrefix("at: 'soon' is not a time") == true)
        #expect(error(notify("at: \"1464d 08:00\"")) == nil)
        #expect(error(notify("at: \"1465d 08:00\""))?.message == "at: a date is at most 1464d (four years) after the start")
        // Once an arithmetic overflow (a crash) as the app scheduled it.
        #expect(error(notify("at: \"9223372036854775807d 08:00\""))?.location
                == SourceLocation(file: "bad.yaml", line: 5, column: 31))
        #expect(error(notify("after: 1h, timeZone: UTC"))?.message == "timeZone belongs to 'at:' clock times, not to 'after:'")
    }

    @Test("rules §9: an unknown time zone suggests the nearest, in notify and in device")
    func unknownTimeZone() {
        let e = error(notify("at: \"08:00\", timeZone: Europe/Pariss"))
        #expect(e?.message == "unknown time zone 'Europe/Pariss'; did you mean 'Europe/Paris'?")
        #expect(e?.location.line == 5)
        #expect(error("device: {timeZone: America/New_Yrok}\napps: [{bundle: a}]\n")?.message
                == "unknown time zone 'America/New_Yrok'; did you mean 'America/New_York'?")
        #expect(error("apps: [{bundle: a}]\ntimeline: [{at: 1h, device: {timeZone: Asia/Tokyo}}]\n") == nil)
    }

    @Test("rules §9: sounds name a known audio format; badge is a whole number")
    func soundsAndBadge() {
        let sounds = "    sounds: [{file: chime.caf, format: linearPMC}]\n"
        #expect(error(notify("after: 1m, sound: chime.caf", app: sounds))?.message
                == "unknown audio format 'linearPMC'; did you mean 'linearPCM'?")
        #expect(error(notify("after: 1m", app: "    sounds: [{file: chime.caf}]\n"))?.message.hasPrefix("a sound needs 'format:'") == true)
        #expect(error(notify("after: 1m, sound: chime.caf", app: "    sounds: [{file: chime.caf, format: ima4, length: 2s}]\n")) == nil)
        #expect(error(notify("after: 1m, badge: -1"))?.message == "badge must be a whole number from 0 to 2147483647")
        #expect(error(notify("after: 1m, badge: 99999999999"))?.message.hasPrefix("badge must be") == true)
        #expect(error(notify("after: 1m, badge: 3")) == nil)
    }

    @Test("rules §9: tapNotification names an id some notify schedules")
    func tapUnknownID() {
        let yaml = notify("after: 1m") + "timeline: [{at: 2m, user: tapNotification m}]\n"
        let e = error(yaml)
        #expect(e?.message == "unknown notification id (no 'notify' action schedules it) 'm'; did you mean 'n'?")
        #expect(e?.location.line == 6)
        #expect(error(notify("after: 1m") + "timeline: [{at: 2m, user: tapNotification n}]\n") == nil)
        #expect(error(notify("after: 1m") + "timeline: [{at: 2m, user: tapNotification}]\n")?.message
                == "'tapNotification' needs a notification id: 'tapNotification ID'")
    }

    @Test("rules §9: bgx check warns of a notification sound that would play the default instead, and why")
    func checkSounds() throws {
        let scenario = try ScenarioParser(file: "t.yaml").parse("""
        apps:
          - bundle: a
            sounds: [{file: chime.caf, format: linearPCM}, {file: song.mp3, format: mp3}]
            on:
              didFinishLaunching:
                - notify: {id: ok, after: 1m, sound: chime.caf}
                - notify: {id: mp3, after: 1m, sound: song.mp3}
                - notify: {id: typo, after: 1m, sound: chme.caf}
                - notify: {id: plain, after: 1m, sound: default}
        """)
        let findings = ManifestCheck.check(scenario.apps[0].manifest, usage: InfoPlist.usage(of: scenario.apps[0]))
            .map(\.description)
        #expect(findings == [
            "warning: a: the notification sound at line 7: 'song.mp3' is MP3; alert sounds must be Linear PCM, "
                + "MA4 (IMA/ADPCM), µ-Law or a-Law: the default sound plays",
            "warning: a: the notification sound at line 8: no sound file 'chme.caf' in the app's bundle "
                + "(it has chime.caf, song.mp3): the default sound plays",
        ])
    }
}
