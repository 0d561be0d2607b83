import BGXCore
import BGXSimulation
import Foundation

/// `bgx explain --app BUNDLE --json`: the app's tasks as `--task --json`
/// gives each, and every controller's dump — its concern, its state as
/// data (times in nanoseconds of the run) and its lines of words.
struct ExplainedAppJSON: Encodable {
    struct Controller: Encodable {
        let concern: JSONFragment
        let lines: JSONFragment
        let state: JSONFragment
    }

    // The values are Foundation's JSONEncoder's (sorted keys, its escaping),
    // as they always were; each task as BGXCore encodes it (TaskExplanationJSON.swift).
    let app: JSONFragment
    let at: JSONFragment
    let tasks: [TaskExplanation]
    let controllers: [Controller]
}

func explainedAppJSON(bundle: String, at: String, _ explained: ExplainedMoment,
                      clockText: (Nanoseconds) -> String) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func encoded<T: Encodable>(_ value: T) throws -> JSONFragment {
        JSONFragment(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
    let json = ExplainedAppJSON(
        app: try encoded(bundle), at: try encoded(at), tasks: explained.tasks,
        controllers: try explained.dumps.map {
            ExplainedAppJSON.Controller(concern: try encoded($0.concern), lines: try encoded($0.lines(when: clockText)),
                                        state: try encoded($0))
        })
    return try InlineJSONEncoder().encode(json)
}
