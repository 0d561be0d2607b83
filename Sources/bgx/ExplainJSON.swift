import BGXCore
import BGXSimulation
import Foundation

/// `bgx explain --app BUNDLE --json`: the app's tasks as `--task --json`
/// gives each, and every controller's dump — its concern, its state as
/// data (times in nanoseconds of the run) and its lines of words.
func explainedAppJSON(bundle: String, at: String, _ explained: ExplainedMoment,
                      clockText: (Nanoseconds) -> String) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func encoded<T: Encodable>(_ value: T) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
    var controllers: [String] = []
    for dump in explained.dumps {
        controllers.append("{\"concern\": \(try encoded(dump.concern)), \"lines\": \(try encoded(dump.lines(when: clockText))), "
                           + "\"state\": \(try encoded(dump))}")
    }
    return "{\"app\": \(try encoded(bundle)), \"at\": \(try encoded(at)), "
        + "\"tasks\": [" + explained.tasks.map(\.json).joined(separator: ", ") + "], "
        + "\"controllers\": [" + controllers.joined(separator: ", ") + "]}"
}
