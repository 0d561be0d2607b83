import BGXSimulation
import Foundation

/// Any bytes as a scenario file: parsed, or refused with an error that
/// points into the file (`error: FILE:LINE:COLUMN: message`). A trap, or an
/// error pointing nowhere in the file, is the bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = String(data: Data(bytes: start, count: count), encoding: .utf8) else { return 0 }
    do {
        _ = try ScenarioParser(file: "fuzz.yaml").parse(text)
    } catch let error as ScenarioError {
        // Lines as YAML counts them: CR LF, CR, LF, NEL, LS and PS each end one.
        let scalars = Array(text.unicodeScalars)
        let lines = 1 + scalars.indices.filter { i in
            switch scalars[i] {
            case "\n", "\u{85}", "\u{2028}", "\u{2029}": true
            case "\r": i + 1 == scalars.count || scalars[i + 1] != "\n"
            default: false
            }
        }.count
        guard error.location.file == "fuzz.yaml", (1...max(1, lines + 1)).contains(error.location.line),
              !error.message.isEmpty else {
            fatalError("an error that points nowhere in the file: \(error)")
        }
    } catch {
        fatalError("the scenario parser threw something that is not a ScenarioError: \(error)")
    }
    return 0
}
