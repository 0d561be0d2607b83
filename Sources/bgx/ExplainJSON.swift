import BGXCore
import BGXSimulation
import Foundation

/// `bgx explain --app BUNDLE --json`: the app's tasks as `--task --json`
/// gives each, and every controller's dump — its concern, its state as
/// data (times in nanoseconds of the run) and its lines of words.
struct ExplainedAppJSON: Encodable {
    // The values are Foundation's JSONEncoder's (sorted keys, its escaping),
    // as they always were; each task as BGXCore encodes it (TaskExplanationJSON.swift).
    let app: JSONFragment
    let at: JSONFragment
    let tasks: [TaskExplanation]
    let controllers: [ControllerDumpJSON]
}

func explainedAppJSON(bundle: String, at: String, _ explained: ExplainedMoment,
                      clockText: (Nanoseconds) -> String) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func encoded(_ value: any Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
    let json = ExplainedAppJSON(
        app: JSONFragment(try encoded(bundle)), at: JSONFragment(try encoded(at)), tasks: explained.tasks,
        controllers: try explained.dumps.map { try ControllerDumpJSON($0, when: clockText, encode: encoded) })
    return try InlineJSONEncoder().encode(json)
}
