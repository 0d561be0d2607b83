import BGXLive
import BGXSimulation
import Foundation

/// Any bytes as an Info.plist, read by both of bgx's readers: `bgx check`'s
/// (InfoPlist) and the live host's (AppBundle, which also wants the
/// executable the plist names). Each reads it or refuses it with a reason;
/// a trap is the bug.
let bundle: String = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fuzz-\(getpid()).app").path
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: dir + "/app", contents: Data("#!/bin/sh\n".utf8),
                                   attributes: [.posixPermissions: 0o755])
    return dir
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInfoPlist(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let path = bundle + "/Info.plist"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: start, count: count)) else {
        fatalError("cannot write \(path)")
    }
    do {
        _ = try InfoPlist.read(path)
    } catch let error as ScenarioError {
        _ = error.description
    } catch {
        fatalError("InfoPlist.read threw something that is not a ScenarioError: \(error)")
    }
    do {
        _ = try AppBundle(directory: bundle)
    } catch let error as AppBundle.Invalid {
        _ = error.description
    } catch {
        fatalError("AppBundle threw something that is not AppBundle.Invalid: \(error)")
    }
    return 0
}
