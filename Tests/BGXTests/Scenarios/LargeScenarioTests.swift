import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// issue 31 item 6: a large scenario is read and run in time proportional to
/// its size, and a long run says how far it has come.
@Suite("large scenarios: capped listings, progress")
struct LargeScenarioTests {
    /// A chat app sent a silent push every minute while it is in front of nobody and the device is in use:
    /// every one is held, and each goes when the in-use window ends — hundreds of held pushes.
    static func pushes(_ count: Int) -> String {
        var text = """
        start: 2026-01-05T08:00:00
        duration: 1d
        apps:
          - bundle: com.example.chat
            backgroundModes: [remote-notification]
            on:
              silentPush:
                - complete: newData
          - bundle: com.example.news
        timeline:
          - {at: "08:01", user: launch com.example.chat}
          - {at: "08:02", user: launch com.example.news}
          - {at: "08:03", device: {cameraActive: true}}

        """
        for k in 0..<count { text += "  - {at: \"\(10 + k / 60):\(String(format: "%02d", k % 60))\", push: {app: com.example.chat, type: background, priority: 5}}\n" }
        text += "  - {at: \"23:00\", device: {cameraActive: false}}\n"
        return text
    }

    func story(_ count: Int) throws -> [String] {
        let run = try ScenarioRun(try ScenarioParser(file: "pushes.yaml").parse(Self.pushes(count)))
        run.run()
        return DecisionStory(device: run.device).lines
    }

    @Test("held and dropped pushes are listed up to 40 per type, the rest counted")
    func heldPushesCapped() throws {
        let lines = try story(300)
        // Each push is held, then replaced by the next (only the newest held push is kept): 300 held, 299 replaced.
        let listed = lines.filter { $0.hasPrefix("    0d ") }
        #expect(listed.count == DecisionStory.pushLinesPerType, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains("    … and 559 more held or dropped (every one is in --trace)"), "\(lines.suffix(3))")
        #expect(!listed.contains { $0.contains("→ delivered") }, "a replaced push was never delivered")
    }

    @Test("the held push that was kept says when it was delivered; the ones replaced before it do not")
    func keptPushDelivered() throws {
        let lines = try story(5).filter { $0.hasPrefix("    0d ") }
        #expect(lines.filter { $0.hasSuffix("→ delivered 0d 23:00") } == [
            "    0d 10:04  held: MemoryPressurePolicy: Must Not Proceed [{cameraIsActive == 1}] → delivered 0d 23:00"],
                "\(lines.joined(separator: "\n"))")
        #expect(lines.count == 9)
    }

    @Test("the summary names the first reasons pushes were held for and counts the rest")
    func summaryReasonsCapped() throws {
        // A silent push every 20 minutes for ten days: each day's budget of background pushes is spent and
        // "resets at" a different moment — one reason per day.
        var text = """
        start: 2026-01-05T00:00:00
        duration: 10d
        apps:
          - bundle: com.example.chat
            backgroundModes: [remote-notification]
            on:
              silentPush:
                - complete: newData
        timeline:
          - {at: "00:01", user: launch com.example.chat}
          - {at: "00:02", user: home}

        """
        for minute in stride(from: 0, to: 24 * 60, by: 20) {
            text += "  - {every: day, at: \"\(String(format: "%02d:%02d", minute / 60, minute % 60))\", "
                + "push: {app: com.example.chat, type: background, priority: 5}}\n"
        }
        let run = try ScenarioRun(try ScenarioParser(file: "budget.yaml").parse(text))
        run.run()
        let summary = run.device.summary(of: try #require(run.device.app("com.example.chat")))
        let line = try #require(summary.text.split(separator: "\n").first { $0.contains("pushes:") })
        // Six reasons for the held pushes, then the three the dropped ones had (a list under the cap).
        #expect(line.components(separatedBy: "× ").count - 1 == AppSummary.pushReasonsNamed + 3, "\(line)")
        #expect(line.contains("more for"), "\(line)")
        #expect(line.count < 1_000, "\(line.count) characters")
    }

    @Test("a moment read byte by byte is the moment the long way reads, for every form and near-miss")
    func momentFastPathAgrees() {
        var samples = ["00:00", "23:59", "07:30:15", "1d 07:00", "36500d 23:59:59", "36501d 00:00", "7:30", "07:3",
                       "24:00", "12:60", "1d07:00", " 1d 07:00", "1d 07:00 ", "Wed 09:00", "Tue 09:00", "90s", "2d",
                       "-1d 07:00", "00012d 01:02", "1d 07:00:5", "07:30:60", "1d  07:00", "d 07:00", "1x 07:00", ""]
        // And strings built from the alphabet the forms use, deterministically.
        let alphabet = Array("0123456789:d ")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for k in 0..<Int(state >> 60) + 3 { text.append(alphabet[Int((state >> UInt64(k * 4 % 56)) & 0xFF) % alphabet.count]) }
            samples.append(text)
        }
        var fast = 0
        for text in samples {
            guard let (day, tod) = Units.dayAndClock(text) else { continue }
            fast += 1
            #expect(Units.momentTheLongWay(text, startOffset: Time.hours(6), start: nil)
                    == Time.days(day) + tod - Time.hours(6), "\(text)")
        }
        #expect(fast >= 6, "the usual forms take the fast way")
    }

    @Test("a run that ends within two seconds prints no progress; a long one does, with days done and left")
    func progressLines() {
        var quick = RunProgress(duration: Time.days(7), terminal: false, startedAt: 100)
        #expect(quick.line(simulated: Time.days(3), now: 101) == nil)
        #expect(quick.line(simulated: Time.days(7), now: 101.5) == nil)

        var long = RunProgress(duration: Time.days(10), terminal: false, startedAt: 100)
        #expect(long.line(simulated: Time.days(1), now: 101) == nil)
        #expect(long.line(simulated: Time.days(4), now: 104) == "run: day 4 of 10 simulated, 1.0 days/s, about 6 s left\n")
        #expect(long.line(simulated: Time.days(5), now: 105) == nil, "every 5 s when stderr is not a terminal")
        #expect(long.line(simulated: Time.days(10), now: 106) == "run: day 10 of 10 simulated, 1.7 days/s, about 0 s left\n",
                "the end is always said once progress was shown")

        var terminal = RunProgress(duration: Time.days(2), terminal: true, startedAt: 0)
        #expect(terminal.line(simulated: Time.days(1), now: 3) == "\rrun: day 1 of 2 simulated, 0.3 days/s, about 3 s left   ")
        #expect(terminal.line(simulated: Time.days(2), now: 3.6)?.hasSuffix("   \n") == true)
    }
}
