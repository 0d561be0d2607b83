import BGXApp
import BGXLiveApp
import Foundation
import Glibc

// A BGXApp app that hands a background URLSession transfer to the live host,
// as an iOS app does. Its bundle's `behaviour` file says what, one word a line:
//   download URL BYTES       a download task of BYTES expected (launched by the user)
//   upload URL FILE METHOD   an upload of FILE (a `x-bgx-test: upload` header)
//   discretionary            the session is discretionary (isDiscretionary)
//   exit                     the process exits once it is sent to the background
//   resourceTimeout SECONDS  the session's timeoutIntervalForResource
// What its delegate receives is appended to `events` in its container: a
// download's file (moved out of the system's location, as iOS requires)
// to `received`, noted as `file LENGTH`, each task's end as `complete TASK ERROR-CODE`,
// `handleEvents ID` and `finishEvents ID`.

let bundle = ProcessInfo.processInfo.environment["BGX_BUNDLE_PATH"] ?? "."
/// Where it writes: its data container (the bundle is read-only to it, as on iOS).
let home = ProcessInfo.processInfo.environment["BGX_CONTAINER"] ?? bundle
let behaviour = ((try? String(contentsOfFile: bundle + "/behaviour", encoding: .utf8)) ?? "")
    .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
func word(_ w: String) -> [String]? { behaviour.first { $0.first == w } }

func note(_ line: String) {
    let fd = open(home + "/events", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    _ = Array((line + "\n").utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

final class TransferAppDelegate: ApplicationDelegate, URLSessionDelegate {
    static let identifier = "com.example.transfers"
    var session: URLSession!
    var eventsDone: (() -> Void)?

    func application(_ application: Application, didFinishLaunchingWithOptions options: LaunchOptions?) -> Bool {
        let configuration = URLSessionConfiguration.background(withIdentifier: Self.identifier)
        configuration.isDiscretionary = word("discretionary") != nil
        // A connection silent this long is given up and retried (from the bytes kept).
        configuration.timeoutIntervalForRequest = 2
        if let t = word("resourceTimeout"), t.count > 1, let seconds = Double(t[1]) {
            configuration.timeoutIntervalForResource = seconds
        }
        session = URLSession(configuration: configuration, delegate: self)
        note("launch \(options.map { "\($0.cause)" } ?? "user")")
        guard options == nil else { return true }
        if let d = word("download"), d.count > 2, let url = URL(string: d[1]) {
            let task = session.downloadTask(with: url)
            task.countOfBytesClientExpectsToReceive = Int64(d[2]) ?? -1
            task.resume()
        }
        if let u = word("upload"), u.count > 3, let url = URL(string: u[1]) {
            var request = URLRequest(url: url)
            request.httpMethod = u[3]
            request.setValue("upload", forHTTPHeaderField: "x-bgx-test")
            session.uploadTask(with: request, fromFile: URL(fileURLWithPath: u[2])).resume()
        }
        return true
    }

    func applicationDidEnterBackground(_ application: Application) {
        if word("exit") != nil { Glibc.exit(0) }
    }

    func application(_ application: Application, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        note("handleEvents \(identifier)")
        eventsDone = completionHandler
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let kept = home + "/received"
        try? FileManager.default.removeItem(atPath: kept)
        do {
            try FileManager.default.moveItem(atPath: location.path, toPath: kept)
            let size = try FileManager.default.attributesOfItem(atPath: kept)[.size] as? NSNumber
            note("file \(size?.int64Value ?? -1)")
        } catch {
            note("file error \(error)")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        note("complete \(task.taskIdentifier) \((error as? URLSessionTaskError)?.code ?? 0)")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        note("finishEvents \(session.configuration.identifier ?? "")")
        eventsDone?()
        eventsDone = nil
    }
}

LiveApplication.main { TransferAppDelegate() }
