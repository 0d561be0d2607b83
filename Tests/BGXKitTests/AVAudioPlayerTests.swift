import BGXCore
import BGXKit
import BGXSimulation
import Foundation
import Testing

/// A WAV header for `seconds` of 8 kHz, 8-bit mono sound (the samples themselves are not needed).
func wavHeader(seconds: Int) -> Data {
    func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)] }
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    let size = UInt32(seconds * 8_000)
    var bytes = Array("RIFF".utf8) + le32(36 + size) + Array("WAVE".utf8)
    bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(8_000) + le32(8_000) + le16(1) + le16(8)
    bytes += Array("data".utf8) + le32(size)
    return Data(bytes)
}

/// Plays a two-minute sound when the person opens the app, and hears of interruptions.
final class PlayerAppDelegate: UIResponder, UIApplicationDelegate, AVAudioPlayerDelegate {
    nonisolated static let journal = Journal()
    /// Seconds after it starts that the app pauses its player (nil: never).
    static var pauseAfter: Double?
    nonisolated(unsafe) var player: AVAudioPlayer?

    func applicationDidBecomeActive(_ application: UIApplication) {
        guard player == nil else { return }
        try? AVAudioSession.sharedInstance().setCategory(.playback, mode: .spokenAudio, options: [])
        _ = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                               object: AVAudioSession.sharedInstance(), queue: nil) { [weak self] note in
            let type = (note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt)
                .flatMap(AVAudioSession.InterruptionType.init(rawValue:))
            Self.journal.write("interruption \(type == .began ? "began" : "?"), playing: \(self?.player?.isPlaying ?? false)")
        }
        player = try? AVAudioPlayer(data: wavHeader(seconds: 120))
        player?.delegate = self
        Self.journal.write("duration \(Int(player?.duration ?? 0)), play: \(player?.play() ?? false)")
        if let pauseAfter = Self.pauseAfter {
            DispatchQueue.main.asyncAfter(deadline: .now() + pauseAfter) { self.player?.pause() }
        }
    }

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        Self.journal.write("finished at \(Int(player.currentTime)) successfully: \(flag), playing: \(player.isPlaying)")
    }
}

/// An app in front that plays audio that does not mix with others.
final class LoudAppDelegate: UIResponder, UIApplicationDelegate {
    var player: AVAudioPlayer?
    func applicationDidBecomeActive(_ application: UIApplication) {
        player = try? AVAudioPlayer(data: wavHeader(seconds: 30))
        player?.play()
    }
}

@Suite("BGXKit — AVAudioPlayer", .serialized)
struct AVAudioPlayerTests {
    static let manifest = AppManifest(bundleIdentifier: "com.example.player", backgroundModes: [.audio])

    @Test("rules §4: with the audio mode an AVAudioPlayer keeps playing in the background until its sound ends, then the app is suspended")
    func playsToTheEndInTheBackground() {
        PlayerAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        var delegates: [PlayerAppDelegate] = []
        let app = device.install(Self.manifest) {
            let delegate = PlayerAppDelegate()
            delegates.append(delegate)
            return delegate
        }
        device.perform(.launch(app))
        device.advance(seconds: 10)
        device.perform(.home)
        device.advance(seconds: 60)
        #expect(delegates.first?.player?.isPlaying == true)
        #expect(device.state(of: app) == .background)
        device.advance(seconds: 120)
        #expect(PlayerAppDelegate.journal.entries == ["duration 120, play: true", "finished at 0 successfully: true, playing: false"])
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4: pause() stops the sound, and the app in the background is suspended")
    func pauseStops() {
        PlayerAppDelegate.journal.entries = []
        PlayerAppDelegate.pauseAfter = 40
        defer { PlayerAppDelegate.pauseAfter = nil }
        let device = SimulatedDevice()
        var delegates: [PlayerAppDelegate] = []
        let app = device.install(Self.manifest) {
            let delegate = PlayerAppDelegate()
            delegates.append(delegate)
            return delegate
        }
        device.perform(.launch(app))
        device.advance(seconds: 30)
        let player = delegates.first?.player
        #expect(player.map { Int($0.currentTime) } == 30)
        device.perform(.home)
        device.advance(seconds: 20)
        #expect(player?.isPlaying == false)
        #expect(player.map { Int($0.currentTime) } == 40)
        #expect(device.state(of: app) == .suspended)
    }

    @Test("rules §4: another app in front that plays audio interrupts the player: AVAudioSession.interruptionNotification, type began, and it stops")
    func interrupted() {
        PlayerAppDelegate.journal.entries = []
        let device = SimulatedDevice()
        let app = device.install(Self.manifest) { PlayerAppDelegate() }
        let loud = device.install(AppManifest(bundleIdentifier: "com.example.loud")) { LoudAppDelegate() }
        device.perform(.launch(app))
        device.perform(.home)
        device.advance(seconds: 20)
        device.perform(.launch(loud))
        device.advance(seconds: 5)
        #expect(PlayerAppDelegate.journal.entries == ["duration 120, play: true", "interruption began, playing: false"])
        #expect(!device.traceLines.contains { $0.contains("\"terminate\"") })
    }
}
