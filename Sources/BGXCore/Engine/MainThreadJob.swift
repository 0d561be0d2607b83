/// Work queued for an app's main thread. Each runs only when the thread is
/// free, in order, the way UIKit's run loop serialises lifecycle events.
/// Each lifecycle job names the state it leaves; if the app is no longer in
/// it, the job is skipped.
enum MainThreadJob: Sendable, Equatable, Codable {
    case finishLaunching(LaunchCause)
    case becomeActive            // inactive → active, didBecomeActive
    case resignActive            // active → inactive, willResignActive
    case enterBackground         // inactive → background, didEnterBackground
    case enterForeground         // background → inactive, willEnterForeground
    case terminateGracefully(TerminationReason)  // willTerminate, then terminate
    case expirationHandler(Int)
    case timer(Int32)
    case notification(NotificationID)
    case notificationResponse(NotificationID)
    case bgTask(TextID)
    case bgTaskExpired(TextID)
    case performFetch
    case memoryWarning          // didReceiveMemoryWarning (rules §10)
    case socketsClosed          // the app hears of sockets closed while it was suspended
    /// A long-running service's callback (rules §4): location, accessory, audio.
    case service(Callback)
    /// The transfer daemon's deliveries (rules §8).
    case transfer(TransferJob)
    case remoteNotification(UInt32, PushType)
    case voipPush(UInt32)
    case voipSocket
    case keepAlive
    /// `performExpiringActivity`'s block with `expired == false` (on the background queue),
    /// and again with `true` as the time runs out (rules §13).
    case expiringActivity(Int)
    case expiringActivityExpired(Int)
}
