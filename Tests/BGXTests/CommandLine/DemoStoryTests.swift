import BGXCore
import BGXSimulation
import Foundation
import Testing

/// `bgx demo`'s "What the system decided" reads as docs/tour.md's story:
/// repeated decisions grouped with how close they came to use, the
/// deferrals and the push throttling told, every background task named,
/// and every moment written as scenarios write them (`0d 23:35`).
@Suite("The demo reads as a story")
struct DemoStoryTests {
    static let run: ScenarioRun = {
        let scenario = try! ScenarioParser(file: Demo.file).parse(Demo.scenario)
        let run = try! ScenarioRun(scenario)
        run.run()
        return run
    }()
    static let story = DecisionStory(device: run.device).lines
    static var text: String { story.joined(separator: "\n") }

    /// The refresh launches the trace records, and those the scheduler
    /// made for a predicted use, with how long before it each came.
    static var refreshStarts: (all: Int, predicted: [Nanoseconds]) {
        let device = run.device
        var all = 0
        var leads: [Nanoseconds] = []
        for e in device.trace where e.kindName == "task.start" {
            let fields = Dictionary(device.renderer.fields(of: e).compactMap { name, value -> (String, String)? in
                if case let .string(s) = value { return (name, s) }
                return nil
            }, uniquingKeysWith: { a, _ in a })
            guard fields["identifier"]?.contains("colorfeed.refresh") == true else { continue }
            all += 1
            if let r = fields["reason"], let range = r.range(of: "predicted use at ") {
                let words = r[range.upperBound...].split(separator: " ").prefix(2).joined(separator: " ")
                if let use = Units.moment(words, startOffset: device.engine.wallClockOffset) { leads.append(use - e.time) }
            }
        }
        return (all, leads)
    }

    @Test("repeated refresh launches are one line with their count and how many came shortly before a predicted use (rules §6)")
    func refreshLaunchesAreGrouped() throws {
        let (all, leads) = Self.refreshStarts
        #expect(all > 10 && !leads.isEmpty)
        let lead = Time.describe(try #require(leads.max()))
        #expect(Self.text.contains("com.example.colorfeed.refresh (app refresh): \(all) launches"))
        #expect(Self.text.contains("\(leads.count) of them within \(lead) before a predicted use"))
        #expect(Self.text.contains("habits it learned: 08:00, 13:00, 19:30"))
        // Grouped: no line per launch.
        #expect(Self.story.filter { $0.contains("predicted use at") }.isEmpty)
    }

    @Test("the deferrals are told, by the policy that decided (rules §6)")
    func deferralsAreTold() {
        #expect(Self.text.contains("deferred"))
        #expect(Self.text.contains("ApplicationPolicy"))
        #expect(Self.text.contains("ChargerPluggedInPolicy") && Self.text.contains("requiresExternalPower == 1 AND pluggedIn == 0"))
    }

    @Test("the push throttling and the push held after a force-quit are told, with when they were delivered (rules §7)")
    func pushesAreTold() {
        #expect(Self.text.contains("2d 18:40  held: throttled: 3 background pushes in the past hour (at most 3) → delivered 2d 19:00"))
        #expect(Self.text.contains("replaced by a newer push while held"))
        #expect(Self.text.contains("4d 22:00  held: the user force-quit the app") && Self.text.contains("→ delivered 5d 08:10"))
    }

    @Test("an expired background task is named (rules §2)")
    func expiredBackgroundTaskIsNamed() {
        #expect(Self.text.contains("0d 17:50:25  background task \"sync\" expired"))
        #expect(Self.text.contains("0d 17:50:30  ended: backgroundTaskTimeout (0x2182bad2)"))
    }

    @Test("one time format throughout: moments as scenarios write them, never seconds from the start")
    func oneTimeFormat() {
        let output = Self.text + "\n" + Self.run.results.map(\.message).joined(separator: "\n")
        #expect(!output.contains("t="), "\(output)")
        // The first expectation's first match: the processing task, 5 minutes after the charger (rules §6's thundering herd).
        #expect(Self.run.results.first { $0.message.contains("first at ") }?.message.contains("first at 0d 23:35") == true)
        // Every line that starts with a day starts with `Nd HH:MM`, and there are such lines.
        #expect(Self.story.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("0d ") }.count >= 2)
        for line in Self.story {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.range(of: #"^\d+d "#, options: .regularExpression) != nil else { continue }
            let moment = t.split(separator: " ").prefix(2).joined(separator: " ")
            #expect(moment.range(of: #"^\d+d \d\d:\d\d(:\d\d)?$"#, options: .regularExpression) != nil, "\(line)")
        }
    }

    @Test("the summary leaves out states never stayed in and says what cold and warm launches are")
    func summaryExplainsItself() {
        let device = Self.run.device
        let text = device.engine.appIDs.map { device.summary(of: $0).text }.joined()
        #expect(!text.contains(" 0s"), "\(text)")
        #expect(text.contains("launches:     1 new process (user 1), 20 returns to the front from memory"))
    }
}
