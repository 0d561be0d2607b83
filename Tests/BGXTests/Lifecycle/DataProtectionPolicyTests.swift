@testable import BGXCore
import Testing

/// rules §13's data-protection policy on its own: the device's lock and
/// passcode in, which classes are readable and why out — no engine.
@Suite struct DataProtectionPolicyTests {
    func policy(passcode: Bool = true, unlockedSinceBoot: Bool = true, lockedAt: Nanoseconds? = nil,
                now: Nanoseconds = Time.minutes(1)) -> DataProtectionPolicy {
        DataProtectionPolicy(passcode: passcode, unlockedSinceBoot: unlockedSinceBoot, locked: lockedAt != nil,
                             lockedSince: lockedAt, now: now, settings: DataProtectionSettings(), wallClockOffset: 0)
    }

    @Test("rules §13: complete protection is readable for 10 seconds after the lock, then refused until the passcode is entered")
    func completeProtectionEndsAfterTheGracePeriod() {
        #expect(policy(lockedAt: Time.seconds(55)).write(.complete).access == .ok)
        #expect(policy(lockedAt: Time.seconds(55)).write(.complete).words == "locked less than 10s ago")
        let refused = policy(lockedAt: Time.seconds(50)).read(ProtectedFile(protection: .complete, bytes: 0))
        #expect(refused.access == .notPermitted(reason: refused.words))
        #expect(refused.words.hasPrefix("the device is locked: class A keys were discarded 10s after the lock at "))
        #expect(policy(lockedAt: Time.seconds(50)).read(ProtectedFile(protection: .completeUntilFirstUserAuthentication,
                                                                    bytes: 0)).access == .ok)
    }

    @Test("rules §13: before the first unlock only unprotected files open; without a passcode every file does")
    func firstUnlockAndNoPasscode() {
        let booted = policy(unlockedSinceBoot: false, lockedAt: 0)
        #expect(booted.refusal(.completeUntilFirstUserAuthentication) == "the device has not been unlocked since it booted")
        #expect(booted.refusal(.none) == nil)
        let open = policy(passcode: false, unlockedSinceBoot: false, lockedAt: 0)
        #expect(open.refusal(.complete) == nil && open.grant(.complete) == "no passcode: files are not protected by one")
        #expect(policy().read(nil).access == .noSuchFile && policy().read(nil).words == "no such file")
    }
}
