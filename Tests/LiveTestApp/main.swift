import BGXLive
import Foundation
import Glibc

// A small app the live host's tests run as a real process. What it does is
// in `behaviour` beside its executable in the bundle (one word):
//   normal            answers every callback; a background push is completed
//   overrun           begins a background task on entering the background, never ends it
//   polite            begins one and ends it in its expiration handler
//   hang-launch       never returns from didFinishLaunching
//   no-connect        never connects to the daemon
//   exit-in-background  exits with status 3 once in the background
//   forker            starts a child (/bin/sleep) as it launches and writes its pid to `child`
//   refresh           registers com.example.refresh as it launches, submits it
//                     on entering the background, and completes it when it runs
//   refresh-soon      as refresh, but the request's earliest begin is 30 s away
//   notify            schedules notification `reminder` 30 s ahead on entering the background
//   hog               holds 200 MB (touched) from didFinishLaunching on
//   steal             as it launches, tries to end background task 1 — another
//                     app's — and writes the reply to `steal-result`
//   counting-forker   starts a copy of itself as a child (in its process
//                     group, not connected) that counts into `child-counter`,
//                     and writes the child's pid to `child`
//   setsid-forker     as counting-forker, but the child leaves the app's
//                     process group and session (`setsid`) before counting
//   ctl               as it launches, opens a second connection and says hello
//                     as ctl on it, and writes the reply to `ctl-result`
//   escape            as it launches, starts a child (/bin/sh) that tries to
//                     write each path in the bundle's `escape-targets` (its own
//                     pid to a `cgroup.procs`, 1 to anything else), and writes
//                     `PATH ok` or `PATH refused` for each to `escape-result`
//   chatty            as it launches, a thread prints a line to standard
//                     output every millisecond (its log grows)
//   burn              plays audio (so it stays in the background) and, once
//                     there, spins four threads
//   silent-hog        plays audio and, once in the background, a thread
//                     holds 200 MB (touched) — without a call to the daemon
// Meanwhile a thread counts, writing the count to `counter` in its container
// every millisecond: a frozen process's count stands still.

let env = ProcessInfo.processInfo.environment
let bundle = env["BGX_BUNDLE_PATH"] ?? "."
/// Where it writes: its data container (the bundle is read-only to it, as on iOS).
let home = env["BGX_CONTAINER"] ?? bundle
let behaviour = (try? String(contentsOfFile: bundle + "/behaviour", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "normal"

// The counting child of `counting-forker`: it counts and nothing else.
if env["BGX_TESTAPP_CHILD"] == "1" {
    if env["BGX_TESTAPP_SETSID"] == "1", setsid() < 0 { exit(1) }
    let fd = open(home + "/child-counter", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var n = 0
    while true {
        n += 1
        let text = Array(String(format: "%012d", n).utf8)
        _ = pwrite(fd, text, text.count, 0)
        usleep(1000)
    }
}

let counterFD = open(home + "/counter", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
let counterLock = NSLock()
nonisolated(unsafe) var count = 0
/// One more on the counter. The first is written before the app connects and
/// the push handler writes one too, so a test that reads the counter after
/// "active" or after "push.complete" never races a thread the scheduler has
/// not yet run on a loaded machine.
func tick() {
    counterLock.lock(); defer { counterLock.unlock() }
    count += 1
    let text = Array(String(format: "%012d", count).utf8)
    _ = pwrite(counterFD, text, text.count, 0)
}
tick()
Thread.detachNewThread {
    while true {
        tick()
        usleep(1000)
    }
}

if behaviour == "no-connect" {
    while true { pause() }
}

var held: [UnsafeMutableRawPointer] = []
let client = try LiveClient()
client.onCallback = { callback in
    switch (behaviour, callback.name) {
    case ("hang-launch", "didFinishLaunching"):
        while true { pause() }
    case ("overrun", "didEnterBackground"):
        _ = try? client.beginBackgroundTask(withName: "upload")
    case ("polite", "didEnterBackground"):
        var id = 0
        id = (try? client.beginBackgroundTask(withName: "upload") { try? client.endBackgroundTask(id) }) ?? 0
    case ("exit-in-background", "didEnterBackground"):
        exit(3)
    case ("refresh", "didFinishLaunching"), ("refresh-soon", "didFinishLaunching"):
        _ = try? client.register(forTaskWithIdentifier: "com.example.refresh") { identifier in
            try? client.setTaskCompleted(identifier: identifier, success: true)
        }
    case ("refresh", "didEnterBackground"):
        try? client.submit(identifier: "com.example.refresh", type: "appRefresh", earliestBeginIn: 3600)
    case ("notify", "didEnterBackground"):
        _ = try? client.call("addNotification", ["identifier": "reminder", "trigger": "interval", "seconds": "30", "body": "time to look"])
    case ("refresh-soon", "didEnterBackground"):
        try? client.submit(identifier: "com.example.refresh", type: "appRefresh", earliestBeginIn: 30)
    case ("forker", "didFinishLaunching"):
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("1000"), nil]
        if posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0 {
            try? "\(child)".write(toFile: home + "/child", atomically: true, encoding: .utf8)
        }
    case ("counting-forker", "didFinishLaunching"), ("setsid-forker", "didFinishLaunching"):
        var child: pid_t = 0
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(me), nil]
        let words: [String] = env.map { "\($0.key)=\($0.value)" } + ["BGX_TESTAPP_CHILD=1"]
            + (behaviour == "setsid-forker" ? ["BGX_TESTAPP_SETSID=1"] : [])
        let childEnv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        if posix_spawn(&child, me, nil, nil, argv, childEnv) == 0 {
            try? "\(child)".write(toFile: home + "/child", atomically: true, encoding: .utf8)
        }
    case ("hog", "didFinishLaunching"):
        let size = 200 * 1024 * 1024
        let block = malloc(size)!
        memset(block, 1, size)
        held.append(block)
    case ("steal", "didFinishLaunching"):
        let reply = try? client.call("endBackgroundTask", ["id": "1"])
        try? "\(reply?.ok == true) \(reply?.text ?? "")".write(toFile: home + "/steal-result", atomically: true, encoding: .utf8)
    case ("chatty", "didFinishLaunching"):
        Thread.detachNewThread {
            var n = 0
            while true {
                n += 1
                print("line \(n) of a chatty app's log")
                fflush(stdout)
                usleep(1000)
            }
        }
    case ("ctl", "didFinishLaunching"):
        var result = "no connection"
        if let c = try? LiveConnection(socket: env["BGX_SOCKET"] ?? "") {
            try? c.send(LiveMessage(type: "hello", role: "ctl"))
            if let reply = (try? c.receive()) ?? nil { result = "\(reply.ok == true) \(reply.text ?? "")" } else { result = "closed" }
        }
        try? result.write(toFile: home + "/ctl-result", atomically: true, encoding: .utf8)
    case ("escape", "didFinishLaunching"):
        let targets = ((try? String(contentsOfFile: bundle + "/escape-targets", encoding: .utf8)) ?? "").split(separator: "\n")
        var lines: [String] = []
        for target in targets {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", "case \"$1\" in *cgroup.procs) v=$$;; *) v=1;; esac; echo $v > \"$1\" 2>/dev/null", "sh", String(target)]
            try? shell.run()
            shell.waitUntilExit()
            lines.append("\(target) \(shell.terminationStatus == 0 ? "ok" : "refused")")
        }
        try? lines.joined(separator: "\n").write(toFile: home + "/escape-result", atomically: true, encoding: .utf8)
    case ("burn", "didFinishLaunching"), ("silent-hog", "didFinishLaunching"):
        _ = try? client.call("startAudio", ["category": "playback"])
    case ("burn", "didEnterBackground"):
        for _ in 0..<4 {
            Thread.detachNewThread {
                var x: UInt64 = 1
                while true { x = x &* 6364136223846793005 &+ 1 }
            }
        }
    case ("silent-hog", "didEnterBackground"):
        Thread.detachNewThread {
            usleep(200_000)  // after the acknowledgement: the daemon must notice it unasked
            let size = 200 * 1024 * 1024
            let block = malloc(size)!
            memset(block, 1, size)
            held.append(block)
            while true { pause() }
        }
    case (_, "didReceiveRemoteNotification"):
        tick()
        if let number = callback.args["number"] {
            _ = try? client.call("completeRemoteNotification", ["number": number, "result": "newData"])
        }
    default: break
    }
}
try client.run()
