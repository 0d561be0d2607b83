import BGXLive
import Foundation
import Glibc
import Testing

/// The platform feeds the engine (docs/live.md, "On a device"): systemd's
/// notify socket and watchdog, UPower, NetworkManager and logind over a real
/// (private) system bus with python-dbusmock's services on it, the kernel's
/// power-supply directory, and a real headless wlroots compositor's focus.
@Suite("the platform feeds the live host", .serialized)
struct LivePlatformTests {
    static func program(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    /// python-dbusmock comes with Debian's python3 (the one with the `dbus` module).
    static var dbusmockPython: String? {
        for python in ["/usr/bin/python3"] where FileManager.default.isExecutableFile(atPath: python) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["-c", "import dbus, dbusmock"]
            p.standardError = FileHandle.nullDevice
            if (try? p.run()) != nil { p.waitUntilExit(); if p.terminationStatus == 0 { return python } }
        }
        return nil
    }
    static var noDBus: String? {
        if program("dbus-daemon") == nil { return "no dbus-daemon (Debian: dbus)" }
        if dbusmockPython == nil { return "no python3 with dbusmock (Debian: python3-dbusmock)" }
        return nil
    }
    static var noCompositor: String? {
        if geteuid() != 0 { return "sway runs as nobody: needs root to change user" }
        for name in ["sway", "swaymsg", "foot", "setpriv"] where program(name) == nil { return "no \(name) (Debian: sway, foot, util-linux)" }
        return nil
    }

    /// CI sets BGX_REQUIRE_PLATFORM: there a missing program fails the test instead of skipping it.
    static let required = ProcessInfo.processInfo.environment["BGX_REQUIRE_PLATFORM"] != nil

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-platform-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    // MARK: systemd

    /// A datagram socket the test reads as systemd would; `name` is a path or `@abstract`.
    final class NotifySocket {
        let fd: Int32
        init(_ name: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let address = try SocketAddress(name)
            try #require(address.withSockaddr { bind(fd, $0, $1) } == 0, "bind \(name): \(String(cString: strerror(errno)))")
        }
        /// The next datagram within `seconds`, or nil.
        func receive(seconds: Double = 20) -> String? {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(seconds * 1000)) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
        }
        /// Datagrams until one holds `line` (as a line of its own).
        func wait(for line: String, seconds: Double = 20) -> [String] {
            var seen: [String] = []
            let deadline = MonotonicClock.now() + Int64(seconds * 1e9)
            while MonotonicClock.now() < deadline, let d = receive(seconds: Double(deadline - MonotonicClock.now()) / 1e9) {
                seen.append(d)
                if d.split(separator: "\n").contains(Substring(line)) { return seen }
            }
            Issue.record("no \(line) datagram; got \(seen)")
            return seen
        }
        deinit { close(fd) }
    }

    @Test("Type=notify: READY=1 once the socket listens, WATCHDOG=1 at half of WATCHDOG_USEC, STOPPING=1 at SIGTERM (a path and an abstract socket)",
          arguments: ["path", "abstract"])
    func systemdNotify(kind: String) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = kind == "path" ? dir + "/notify" : "@bgx-notify-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        let notify = try NotifySocket(name)
        let host = try LiveHost(extra: ["--platform", "systemd"], environment: ["NOTIFY_SOCKET": name, "WATCHDOG_USEC": "400000"])
        let ready = notify.wait(for: "READY=1")
        #expect(ready.last?.contains("MAINPID=\(host.process.processIdentifier)") == true)
        // The socket listens by READY=1: a ctl answers at once.
        #expect(try host.ctl("status").contains("systemd: notified at \(name), watchdog pings every 200ms"))
        // Two pings at half the watchdog's 400 ms, each after READY.
        let first = MonotonicClock.now()
        _ = notify.wait(for: "WATCHDOG=1")
        _ = notify.wait(for: "WATCHDOG=1")
        #expect(MonotonicClock.now() - first >= 150_000_000, "two pings came closer together than the watchdog asks")
        // An app does not inherit the daemon's notify socket.
        let container = try host.install("com.example.notified")
        try host.ctl("launch", "com.example.notified")
        try host.wait(for: ["kind": "state", "to": "active"])
        let pid = try #require(Int32(try host.ctl("status").split(separator: "\n").first { $0.hasPrefix("com.example.notified") }?
            .split(separator: ",").first { $0.contains("pid") }?.split(separator: " ").last ?? ""))
        let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
        #expect(!environ.isEmpty && !String(decoding: environ, as: UTF8.self).contains("NOTIFY_SOCKET"), "container \(container)")
        host.process.terminate()
        _ = notify.wait(for: "STOPPING=1")
        host.stop()
    }

    @Test("without NOTIFY_SOCKET, systemd is said to be absent and nothing is sent")
    func systemdAbsent() throws {
        let host = try LiveHost(extra: ["--platform", "systemd"], environment: ["NOTIFY_SOCKET": ""])
        #expect(try host.ctl("status").contains("systemd: absent (no NOTIFY_SOCKET"))
    }

    /// The repository's unit file.
    static var unitFile: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/systemd/bgx-daemon.service").path
    }

    @Test("the shipped unit file: Type=notify, a watchdog, Delegate=yes; systemd-analyze verify accepts it where systemd is installed")
    func unitFileVerifies() throws {
        let unit = try String(contentsOfFile: Self.unitFile, encoding: .utf8)
        for line in ["Type=notify", "NotifyAccess=main", "WatchdogSec=10s", "Delegate=yes", "KillMode=mixed", "StateDirectoryMode=0700"] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "no \(line)")
        }
        guard let analyze = Self.program("systemd-analyze") else { return }
        // verify wants ExecStart's program to exist: the one built beside the tests.
        let daemon = try #require(LiveHost.executable("bgx-daemon"))
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try unit.replacingOccurrences(of: "/usr/local/bin/bgx-daemon", with: daemon)
            .write(toFile: dir + "/bgx-daemon.service", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: analyze)
        p.arguments = ["verify", dir + "/bgx-daemon.service"]
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 0 && !said.contains("bgx-daemon.service"), "\(said)")
    }

    @Test("the unit's ExecStart as systemd runs it: in the service's cgroup, told NOTIFY_SOCKET and WATCHDOG_USEC, the apps' cgroups in that (delegated) subtree",
          .enabled(if: KernelSupport.cgroup2, "needs root and cgroup v2"))
    func delegatedSubtree() throws {
        let unit = try String(contentsOfFile: Self.unitFile, encoding: .utf8)
        let exec = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The unit's own paths, moved under the test's directory.
        var args = exec.dropFirst("ExecStart=".count).split(separator: " ").map(String.init).dropFirst()
            .map { $0.replacingOccurrences(of: "/var/lib/bgx", with: dir + "/state").replacingOccurrences(of: "/run/bgx", with: dir) }
        args = args.map { $0 == "auto" ? "systemd" : $0 }   // this machine's own bus and battery stay out of it
        // The service's cgroup, as systemd makes it: a child of this process's own.
        let mounts: [[Substring]] = KernelSupport.mounts.split(separator: "\n").map { $0.split(separator: " ") }
        let cgroup2: [Substring]? = mounts.first { $0.count > 2 && $0[2] == "cgroup2" }
        let mount = String(try #require(cgroup2)[1])
        let lines = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8).split(separator: "\n")
        let own = String(try #require(lines.first { $0.hasPrefix("0::") }).dropFirst(3))
        let service = mount + (own == "/" ? "" : own) + "/bgx-test-\(getpid()).service"
        let made = mkdir(service, 0o755)
        try #require(made == 0, "mkdir \(service): \(String(cString: strerror(errno)))")
        defer { rmdir(service) }
        let notify = try NotifySocket(dir + "/notify")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "echo $$ > \(service)/cgroup.procs && exec \"$@\"", "sh", try #require(LiveHost.executable("bgx-daemon"))] + args
        p.environment = ProcessInfo.processInfo.environment.merging(["NOTIFY_SOCKET": dir + "/notify", "WATCHDOG_USEC": "10000000"]) { $1 }
        let err = Pipe()
        p.standardError = err
        try p.run()
        let ready = notify.wait(for: "READY=1")
        #expect(ready.last?.contains("MAINPID=\(p.processIdentifier)") == true)
        let client = try ControlClient(socket: dir + "/bgx.sock")
        let status = try client.send("status", []).text ?? ""
        // The freezer's root: the daemon's subtree inside the service's cgroup.
        #expect(status.contains("freezer: cgroup2 (\(service)/bgx-daemon-\(p.processIdentifier))"), "\(status)")
        #expect(status.contains("watchdog pings every 5s"), "\(status)")
        p.terminate()
        _ = notify.wait(for: "STOPPING=1")
        p.waitUntilExit()
        // The daemon removed its subtree: the service's cgroup is empty again.
        #expect(!FileManager.default.fileExists(atPath: "\(service)/bgx-daemon-\(p.processIdentifier)"))
    }

    // MARK: The kernel's power-supply directory

    @Test("charging and battery from a power-supply directory (as /sys/class/power_supply lays it out)")
    func powerSupplyDirectory() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func write(_ path: String, _ text: String) throws {
            try FileManager.default.createDirectory(atPath: dir + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try (text + "\n").write(toFile: dir + "/" + path, atomically: true, encoding: .utf8)
        }
        try write("AC/type", "Mains")
        try write("AC/online", "0")
        try write("BAT0/type", "Battery")
        try write("BAT0/status", "Discharging")
        try write("BAT0/capacity", "55")
        // A mouse's battery is not the device's.
        try write("hidpp_battery_0/type", "Battery")
        try write("hidpp_battery_0/scope", "Device")
        try write("hidpp_battery_0/capacity", "5")
        let host = try LiveHost(extra: ["--platform", "power-supply", "--power-supply", dir, "--power-supply-interval", "0.1"])
        try host.wait(for: ["kind": "platform.source", "source": "power-supply", "state": "live"])
        try host.wait(for: ["kind": "platform.input", "source": "power-supply", "input": "device battery=55"])
        try host.wait(for: ["kind": "device", "property": "battery", "value": "55%"])
        try write("AC/online", "1")
        try host.wait(for: ["kind": "platform.input", "source": "power-supply", "input": "device charging=true"])
        try host.wait(for: ["kind": "device", "property": "charging", "value": "true"])
        try write("AC/online", "0")
        try write("BAT0/capacity", "54")
        try host.wait(for: ["kind": "platform.input", "input": "device charging=false"])
        try host.wait(for: ["kind": "platform.input", "input": "device battery=54"])
        let status = try host.ctl("status")
        #expect(status.contains("charging false") && status.contains("battery 54%"))
        #expect(status.contains("power-supply: live (\(dir)"))
        #expect(!host.lines.contains { $0["input"] as? String == "device battery=5" })
    }

    // MARK: D-Bus: UPower, NetworkManager, logind

    /// A private bus (dbus-daemon) with python-dbusmock's system services on it.
    final class MockBus {
        let directory: String
        let address: String
        let python: String
        var processes: [Process] = []
        init(python: String) throws {
            self.python = python
            directory = try LivePlatformTests.temporaryDirectory()
            let daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: LivePlatformTests.program("dbus-daemon")!)
            daemon.arguments = ["--session", "--nofork", "--address=unix:path=\(directory)/bus", "--print-address=1"]
            let out = Pipe()
            daemon.standardOutput = out
            daemon.standardError = FileHandle.nullDevice
            try daemon.run()
            processes.append(daemon)
            // The bus prints its address once it listens.
            var line = [UInt8]()
            var byte: UInt8 = 0
            while read(out.fileHandleForReading.fileDescriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
            address = String(decoding: line, as: UTF8.self)
            try #require(address.hasPrefix("unix:"), "dbus-daemon did not start")
        }
        /// A dbusmock template's service on the bus (`upower`, `networkmanager`, `logind`).
        func start(_ template: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["-m", "dbusmock", "--system", "-t", template]
            p.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }
        /// Runs Python with `bus` connected, as a service's own tools would drive it.
        func drive(_ code: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["-c", """
                import dbus
                bus = dbus.bus.BusConnection('\(address)')
                def mock(name, path):
                    return dbus.Interface(bus.get_object(name, path), 'org.freedesktop.DBus.Mock')
                upower = lambda: mock('org.freedesktop.UPower', '/org/freedesktop/UPower')
                display = '/org/freedesktop/UPower/devices/DisplayDevice'
                nm = lambda: mock('org.freedesktop.NetworkManager', '/org/freedesktop/NetworkManager')
                logind = lambda: mock('org.freedesktop.login1', '/org/freedesktop/login1')
                session = lambda: dbus.Interface(bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1/session/c1'),
                                                 'org.freedesktop.login1.Session')
                """ + "\n" + code]
            let err = Pipe()
            p.standardError = err
            try p.run()
            p.waitUntilExit()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try #require(p.terminationStatus == 0, "driving the mock failed: \(message)")
        }
        /// dbusmock's services do not end at SIGTERM: SIGKILL.
        static func end(_ p: Process) {
            guard p.isRunning else { return }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        deinit {
            for p in processes.reversed() { Self.end(p) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test("charger, battery, connectivity and lock from UPower, NetworkManager and logind over the system bus (python-dbusmock)",
          .enabled(if: noDBus == nil || required, "\(noDBus ?? "")"))
    func systemBus() throws {
        try #require(Self.noDBus == nil, "\(Self.noDBus ?? "")")
        let bus = try MockBus(python: try #require(Self.dbusmockPython))
        // logind is there before the daemon; UPower and NetworkManager come after it (NameOwnerChanged).
        try bus.start("logind")
        let host = try LiveHost(extra: ["--platform", "upower,networkmanager,logind", "--system-bus", bus.address])
        try host.wait(for: ["kind": "platform.source", "source": "logind", "state": "live"])
        try host.install("com.example.front")
        try host.ctl("launch", "com.example.front")
        try host.wait(for: ["kind": "state", "to": "active"])
        try bus.start("upower")
        try bus.start("networkmanager")
        try host.wait(for: ["kind": "platform.source", "source": "upower", "state": "live"])
        try host.wait(for: ["kind": "platform.source", "source": "networkmanager", "state": "live"])

        // A battery at 40 %, on battery (with no battery, UPower's mock says on mains: charging);
        // then the charger is plugged in and pulled out.
        try bus.drive("upower().SetupDisplayDevice(2, 2, 40.0, 40.0, 100.0, 10.0, 3600, 0, True, 'battery', 1)")
        let forty = try host.wait(for: ["kind": "platform.input", "source": "upower", "input": "device battery=40"])
        try host.wait(for: ["kind": "device", "property": "battery", "value": "40%"])
        #expect(try host.ctl("status").contains("charging false"))
        try bus.drive("upower().SetDeviceProperties(display, {'State': dbus.UInt32(1, variant_level=1)})")
        try host.wait(for: ["kind": "platform.input", "source": "upower", "input": "device charging=true"], after: host.index(of: forty))
        let plugged = try host.wait(for: ["kind": "device", "property": "charging", "value": "true"], after: host.index(of: forty))
        try bus.drive("upower().SetDeviceProperties(display, {'State': dbus.UInt32(2, variant_level=1), 'Percentage': dbus.Double(38.0, variant_level=1)})")
        try host.wait(for: ["kind": "device", "property": "charging", "value": "false"], after: host.index(of: plugged))
        try host.wait(for: ["kind": "device", "property": "battery", "value": "38%"])

        // Connectivity lost (NM_CONNECTIVITY_NONE), then full again.
        try bus.drive("nm().SetConnectivity(1)")
        try host.wait(for: ["kind": "platform.input", "source": "networkmanager", "input": "device network=none"])
        let none = try host.wait(for: ["kind": "device", "property": "network", "value": "none"])
        try bus.drive("nm().SetConnectivity(4)")
        try host.wait(for: ["kind": "device", "property": "network", "value": "wifi"], after: host.index(of: none))

        // The seat's session is locked with logind's Lock signal: the app in front goes to the background.
        try bus.drive("logind().AddSession('c1', 'seat0', dbus.UInt32(1000), 'user', True)")
        try host.wait(for: ["kind": "platform.source", "source": "logind", "detail": "following /org/freedesktop/login1/session/c1, seat0's active session (unlocked)"])
        try bus.drive("session().Lock()")
        try host.wait(for: ["kind": "platform.input", "source": "logind", "input": "lock"])
        let background = try host.wait(for: ["kind": "state", "app": "com.example.front", "to": "background"])
        try bus.drive("session().Unlock()")
        try host.wait(for: ["kind": "platform.input", "source": "logind", "input": "unlock"])
        try host.wait(for: ["kind": "state", "app": "com.example.front", "to": "active"], after: host.index(of: background))
        // LockedHint, as a screen locker sets it, locks too.
        try bus.drive("session().SetLockedHint(True)")
        let hinted = try host.wait(for: ["kind": "platform.input", "source": "logind", "input": "lock"], after: host.index(of: background) + 1)
        try host.wait(for: ["kind": "state", "app": "com.example.front", "to": "background"], after: host.index(of: hinted))

        let status = try host.ctl("status")
        #expect(status.contains("locked true, charging false, network wifi"))
        #expect(status.contains("battery 38%"))
        for service in ["upower", "networkmanager", "logind"] { #expect(status.contains("\(service): live")) }

        // The services leave the bus: said so.
        for p in bus.processes.dropFirst() { MockBus.end(p) }
        try host.wait(for: ["kind": "platform.source", "source": "upower", "state": "absent"])
        #expect(try host.ctl("status").contains("upower: absent"))
    }

    @Test("inputs from the platform are journaled: a restarted daemon has the charger and the lock it was told of",
          .enabled(if: noDBus == nil || required, "\(noDBus ?? "")"))
    func platformInputsSurviveARestart() throws {
        try #require(Self.noDBus == nil, "\(Self.noDBus ?? "")")
        let bus = try MockBus(python: try #require(Self.dbusmockPython))
        try bus.start("upower")
        let host = try LiveHost(extra: ["--platform", "upower", "--system-bus", bus.address])
        try host.wait(for: ["kind": "platform.source", "source": "upower", "state": "live"])
        try bus.drive("upower().SetupDisplayDevice(2, 1, 70.0, 70.0, 100.0, 10.0, 0, 3600, True, 'battery', 1)")
        try host.wait(for: ["kind": "device", "property": "charging", "value": "true"])
        try host.wait(for: ["kind": "device", "property": "battery", "value": "70%"])
        host.crash()
        let again = try LiveHost(extra: ["--platform", "none"], directory: host.directory)
        let status = try again.ctl("status")
        #expect(status.contains("charging true") && status.contains("battery 70%"), "\(status)")
        #expect(status.contains("platform: none"))
    }

    @Test("no system bus: each D-Bus source is absent, with why, and the daemon runs")
    func noSystemBus() throws {
        let host = try LiveHost(extra: ["--platform", "upower,logind", "--system-bus", "unix:path=/nonexistent/bgx-bus"])
        try host.wait(for: ["kind": "platform.source", "source": "upower", "state": "absent"])
        let status = try host.ctl("status")
        #expect(status.contains("upower: absent (the system bus at unix:path=/nonexistent/bgx-bus did not answer"))
        #expect(status.contains("logind: absent"))
    }

    // MARK: The compositor

    /// sway, headless, as `nobody` (it will not run as root), on a runtime directory of its own.
    final class HeadlessSway {
        let directory: String
        let runtime: String
        let process = Process()
        var clients: [String: Process] = [:]
        init() throws {
            directory = try LivePlatformTests.temporaryDirectory()
            runtime = directory + "/xdg"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            chown(runtime, 65534, 65534)
            chmod(runtime, 0o700)
            chmod(directory, 0o755)
            try "xwayland disable\n".write(toFile: directory + "/sway.conf", atomically: true, encoding: .utf8)
            chmod(directory + "/sway.conf", 0o644)
            process.executableURL = URL(fileURLWithPath: LivePlatformTests.program("setpriv")!)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", LivePlatformTests.program("sway")!, "-c", directory + "/sway.conf"]
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": runtime, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless",
                                   "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Up once its display takes a connection (and its IPC socket is there for swaymsg).
            let deadline = MonotonicClock.now() + 20_000_000_000
            while true {
                if let fd = try? SocketAddress(runtime + "/wayland-1").connectStream() {
                    Glibc.close(fd)
                    if (try? FileManager.default.contentsOfDirectory(atPath: runtime))?.contains(where: { $0.hasPrefix("sway-ipc.") }) == true { break }
                }
                try #require(MonotonicClock.now() < deadline && process.isRunning, "sway did not start")
                sched_yield()
            }
        }
        var display: String { runtime + "/wayland-1" }
        /// A real toplevel with this app id (foot, a terminal, running `sleep`).
        func open(_ appID: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: LivePlatformTests.program("foot")!)
            p.arguments = ["--app-id=\(appID)", "sleep", "600"]
            p.environment = ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1", "HOME": directory]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            clients[appID] = p
        }
        /// SIGKILL, not waited for: a child's exit is not always reported to this test process.
        func close(_ appID: String) {
            guard let p = clients.removeValue(forKey: appID), p.isRunning else { return }
            kill(p.processIdentifier, SIGKILL)
        }
        /// `swaymsg COMMAND` on this sway's IPC socket.
        func command(_ command: String) throws {
            let socket = try #require((try FileManager.default.contentsOfDirectory(atPath: runtime)).first { $0.hasPrefix("sway-ipc.") })
            let p = Process()
            p.executableURL = URL(fileURLWithPath: LivePlatformTests.program("swaymsg")!)
            p.arguments = ["-s", runtime + "/" + socket, command]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            try #require(p.terminationStatus == 0, "swaymsg \(command) failed")
        }
        deinit {
            for appID in Array(clients.keys) { close(appID) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test("the app in front follows a real compositor's focus (sway, headless; wlr foreign-toplevel's activated state)",
          .enabled(if: noCompositor == nil || required, "\(noCompositor ?? "")"))
    func compositorFocus() throws {
        try #require(Self.noCompositor == nil, "\(Self.noCompositor ?? "")")
        let sway = try HeadlessSway()
        let host = try LiveHost(extra: ["--platform", "wayland", "--wayland-display", sway.display,
                                        "--app-id", "org.example.Mapped=com.example.mapped"])
        try host.wait(for: ["kind": "platform.source", "source": "wayland", "state": "live"])
        try host.install("com.example.alpha")
        try host.install("com.example.beta")
        try host.install("com.example.mapped")

        // A new window takes the focus: its app comes to the front (launched, as a tap on its icon would).
        try sway.open("com.example.alpha")
        try host.wait(for: ["kind": "platform.input", "source": "wayland", "input": "switchto com.example.alpha"])
        try host.wait(for: ["kind": "state", "app": "com.example.alpha", "to": "active"])
        try sway.open("com.example.beta")
        let beta = try host.wait(for: ["kind": "platform.input", "input": "switchto com.example.beta"])
        try host.wait(for: ["kind": "state", "app": "com.example.alpha", "to": "background"], after: host.index(of: beta))
        try host.wait(for: ["kind": "state", "app": "com.example.beta", "to": "active"], after: host.index(of: beta))

        // The person focuses the other window.
        try sway.command("[app_id=com.example.alpha] focus")
        let alpha = try host.wait(for: ["kind": "platform.input", "input": "switchto com.example.alpha"], after: host.index(of: beta))
        try host.wait(for: ["kind": "state", "app": "com.example.beta", "to": "background"], after: host.index(of: alpha))
        try host.wait(for: ["kind": "state", "app": "com.example.alpha", "to": "active"], after: host.index(of: alpha))
        #expect(try host.ctl("status").contains("front: com.example.alpha"))

        // An app id mapped to a bundle with --app-id.
        try sway.open("org.example.Mapped")
        try host.wait(for: ["kind": "platform.input", "input": "switchto com.example.mapped"])
        try host.wait(for: ["kind": "state", "app": "com.example.mapped", "to": "active"])

        // A window of no installed app in front is home; then its closing leaves no bgx app's window focused… until sway refocuses one.
        try sway.open("org.example.NotAnApp")
        let home = try host.wait(for: ["kind": "platform.input", "input": "home"])
        try host.wait(for: ["kind": "state", "app": "com.example.mapped", "to": "background"], after: host.index(of: home))
        let status = try host.ctl("status")
        #expect(status.contains("front: none"))
        #expect(status.contains("wayland: live"))
    }
}
