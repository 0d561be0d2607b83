import BGXCore
@testable import BGXSimulation
import Foundation
import Testing
import Yams

/// The scenario language is declared once, as tables (ScenarioSection,
/// ScenarioWord, BGXCore's TraceKind and CallbackName): what is derived from
/// them — known keys, "did you mean", the handlers' names, the fields an
/// expectation may name — must agree with what the parser and the trace do.
@Suite("The scenario vocabulary, declared once")
struct ScenarioVocabularyTests {
    func message(_ yaml: String) -> String? {
        do {
            _ = try ScenarioParser(file: "v.yaml").parse(yaml)
            return nil
        } catch let e as ScenarioError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    @Test("no section declares a word twice")
    func wordsAreUnique() {
        for (block, words) in ScenarioParser.vocabulary {
            #expect(Set(words).count == words.count, "\(block): \(words)")
        }
    }

    @Test("every key of a section is read from a scenario, and a near miss is told the key (device:, an app, push)")
    func keysAreReadAndSuggested() {
        let app = "apps:\n  - bundle: a\n"
        for key in ScenarioParser.deviceKeys.names {
            // A value no key takes: the error is the key's own, never "unknown key".
            let m = message("device:\n  \(key): '??'\n" + app)
            #expect(m != nil && m?.hasPrefix("unknown key") == false, "\(key): \(m ?? "accepted")")
            #expect(message("device:\n  \(key)x: 1\n" + app) == "unknown key in device '\(key)x'; did you mean '\(key)'?")
        }
        // `reboot` is a timeline's alone.
        #expect(message("device:\n  reboot: true\n" + app)?.hasPrefix("unknown key in device 'reboot'") == true)
        #expect(message(app + "timeline:\n  - at: 1m\n    device: {reboot: true}\n") == nil)
        for key in ScenarioParser.pushKeys.names {
            let m = message(app + "timeline:\n  - at: 1m\n    push: {app: a, \(key)x: 1}\n")
            #expect(m == "unknown key in push '\(key)x'; did you mean '\(key)'?", "\(m ?? "accepted")")
        }
    }

    @Test("a missing needed key is told by its declaration")
    func neededKeys() {
        #expect(message("duration: 1h\n") == "the scenario has no 'apps:' list")
        #expect(message("apps:\n  - backgroundModes: [audio]\n") == "an app needs a 'bundle:' identifier")
        #expect(message("apps:\n  - bundle: a\n    on:\n      didFinishLaunching:\n        - download: {bytes: 5MB}\n")
                == "'download' needs a session identifier")
        #expect(message("apps:\n  - bundle: a\nusage:\n  - daily: [\"08:00 5m\"]\n") == "a usage entry needs 'app:'")
    }

    @Test("every handler's name parses back to the handler it describes")
    func handlersRoundTrip() throws {
        let parser = ScenarioParser(file: "v.yaml")
        let node = try #require(try Yams.compose(yaml: "x"))
        for word in ScenarioParser.handlers {
            let written: String
            switch word.read {
            case .plain: written = word.name
            case .argument: written = word.name + " some.id"
            }
            let handler = try parser.handlerName(written, node: node)
            #expect(handler.description == written)
        }
    }

    @Test("every action and user command of the tables is read by its own reader")
    func wordsAreRead() {
        for word in ScenarioParser.actions {
            let m = message("apps:\n  - bundle: a\n    on:\n      didFinishLaunching:\n        - \(word.name): {zz: 1}\n")
            #expect(m?.hasPrefix("unknown action") != true, "\(word.name): \(m ?? "accepted")")
        }
        for word in ScenarioParser.userCommands {
            let m = message("apps:\n  - bundle: a\ntimeline:\n  - at: 1m\n    user: \(word.name) a b c\n")
            #expect(m?.hasPrefix("unknown user action") != true, "\(word.name): \(m ?? "accepted")")
        }
    }

    @Test("the trace writes only the fields its kinds declare (TraceKind.fields), over every shipped scenario")
    func traceFieldsAreDeclared() throws {
        let folders = ["Scenarios", "docs/examples"].map { repositoryRoot.appendingPathComponent($0) }
        var seen: Set<TraceKind> = []
        for folder in folders {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
            for file in files {
                let path = folder.appendingPathComponent(file).path
                guard let scenario = try? ScenarioParser.parse(contentsOf: path), scenario.population == nil,
                      let run = try? ScenarioRun(scenario) else { continue }
                run.run()
                let renderer = run.device.renderer
                for event in run.device.trace {
                    seen.insert(event.traceKind)
                    let declared = Set(event.traceKind.fields)
                    for (name, _) in renderer.fields(of: event) where !declared.contains(name) {
                        Issue.record("\(file): \(event.kindName) writes '\(name)', which TraceKind.\(event.traceKind) does not declare")
                    }
                }
            }
        }
        #expect(seen.count > 30, "the shipped scenarios write \(seen.count) kinds")
    }

    @Test("every callback's name is one of CallbackName's, and they are distinct")
    func callbackNames() {
        let names = CallbackName.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(Callback.didFinishLaunching(.user).name == "didFinishLaunching")
        #expect(Callback.accessoryData(.bluetooth).name == "peripheralDidUpdateValue")
        #expect(Callback.keepAlive.callbackName == .keepAliveHandler)
    }
}
