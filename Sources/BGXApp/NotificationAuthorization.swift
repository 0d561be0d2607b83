import BGXCore
import Foundation

/// `UNAuthorizationOptions`: what the app asks the person to allow.
public struct UNAuthorizationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)

    /// The part bgx's rules read; CarPlay, critical alerts, provisional and
    /// the settings button are accepted and change nothing.
    var presentation: NotificationPresentation {
        var p: NotificationPresentation = []
        if contains(.alert) { p.insert(.alert) }
        if contains(.sound) { p.insert(.sound) }
        if contains(.badge) { p.insert(.badge) }
        return p
    }
}

/// `UNAuthorizationStatus`. bgx never reports `.provisional` or `.ephemeral`.
public enum UNAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, denied, authorized, provisional, ephemeral
}

/// `UNNotificationSetting`.
public enum UNNotificationSetting: Int, Sendable {
    case notSupported = 0, disabled, enabled
}

/// `UNNotificationSettings`: what the person allows the app, now.
public final class UNNotificationSettings: Sendable {
    public let authorizationStatus: UNAuthorizationStatus
    public let alertSetting: UNNotificationSetting
    public let soundSetting: UNNotificationSetting
    public let badgeSetting: UNNotificationSetting
    /// As `alertSetting`: bgx's alerts go to Notification Center and the lock screen alike.
    public let notificationCenterSetting: UNNotificationSetting
    public let lockScreenSetting: UNNotificationSetting

    init(_ authorization: NotificationAuthorization) {
        authorizationStatus = switch authorization.status {
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .authorized: .authorized
        }
        func setting(_ kind: NotificationPresentation) -> UNNotificationSetting {
            switch authorization.status {
            case .notDetermined: .notSupported
            case .denied: .disabled
            case .authorized: authorization.allowed.contains(kind) ? .enabled : .disabled
            }
        }
        alertSetting = setting(.alert)
        soundSetting = setting(.sound)
        badgeSetting = setting(.badge)
        notificationCenterSetting = alertSetting
        lockScreenSetting = alertSetting
    }
}

extension UNUserNotificationCenter {
    /// Asks the person the first time (their answer is the test's or the
    /// scenario's, "allow" unless said otherwise); later calls answer at
    /// once with what they chose. As on iOS, the handler runs on a
    /// background thread, not the main one.
    public func requestAuthorization(options: UNAuthorizationOptions = [],
                                     completionHandler: @escaping @Sendable (Bool, Error?) -> Void) {
        let granted = connection.requestNotificationAuthorization(options: options.presentation)
        DispatchQueue.global().async { completionHandler(granted, nil) }
    }

    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        connection.requestNotificationAuthorization(options: options.presentation)
    }

    /// The handler runs on a background thread, as on iOS.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        let settings = UNNotificationSettings(connection.notificationAuthorization)
        DispatchQueue.global().async { completionHandler(settings) }
    }

    public func notificationSettings() async -> UNNotificationSettings {
        UNNotificationSettings(connection.notificationAuthorization)
    }

    /// `setBadgeCount(_:withCompletionHandler:)` (iOS 16): the number on the app's icon.
    public func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable (Error?) -> Void)? = nil) {
        connection.badgeNumber = newBadgeCount
        if let completionHandler { DispatchQueue.global().async { completionHandler(nil) } }
    }

    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        connection.badgeNumber = newBadgeCount
    }
}
