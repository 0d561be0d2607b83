/// The built-in scenario `bgx demo` runs (docs/cli.md, "bgx demo"): the
/// WWDC19 "ColorFeed" app through a week of a person's habits, beside a
/// messaging app.
public enum Demo {
    public static let file = "<demo>"
    public static let scenario = """
    # A week with ColorFeed (WWDC19 session 707) and two messaging apps.
    #
    # ColorFeed (rules §5, §6): every trip to the background submits an app
    #   refresh (earliest in 15 minutes); the refresh fetches for 4 s and
    #   resubmits. Database cleaning is a processing task that needs power,
    #   once a week. The scheduler decides when each runs, and says why.
    # com.example.messenger (rules §2, §7): a send that outlives a trip to the
    #   home screen; its background task ends in time. Its server sends silent
    #   pushes: a burst on Wednesday evening is throttled (3 an hour, the newest
    #   held); on Friday the person swipes it away and the night's push waits
    #   until they open it in the morning.
    # com.example.chatty (rules §2): begins a background task and never ends
    #   it; iOS kills it when the 30 s budget runs out (backgroundTaskTimeout).
    # The person: ColorFeed at breakfast, lunch and in the evening; messages
    #   morning and evening; the phone locks and charges overnight.
    profile: modern
    seed: 7
    start: 2026-01-05T00:00:00
    duration: 7d
    device: {battery: 80%, charging: false, network: wifi, passcode: true}
    apps:
      - bundle: com.example.colorfeed
        backgroundModes: [fetch, processing]
        permittedTaskIdentifiers: [com.example.colorfeed.refresh, com.example.colorfeed.db_cleaning]
        on:
          didFinishLaunching:
            - register: com.example.colorfeed.refresh
            - register: com.example.colorfeed.db_cleaning
            - submit: {identifier: com.example.colorfeed.db_cleaning, type: processing, requiresExternalPower: true}
          didEnterBackground:
            - submit: {identifier: com.example.colorfeed.refresh, type: appRefresh, earliestBegin: 15m}
          task com.example.colorfeed.refresh:
            - submit: {identifier: com.example.colorfeed.refresh, type: appRefresh, earliestBegin: 15m}
            - wait: 4s
            - complete: true
          expire com.example.colorfeed.refresh:
            - complete: false
          task com.example.colorfeed.db_cleaning:
            - work: 40s
            - submit: {identifier: com.example.colorfeed.db_cleaning, type: processing, requiresExternalPower: true, earliestBegin: 6d}
            - complete: true
          expire com.example.colorfeed.db_cleaning:
            - complete: false
      - bundle: com.example.messenger
        backgroundModes: [remote-notification]
        on:
          silentPush:
            - wait: 2s
            - complete: newData
          didEnterBackground:
            - beginBackgroundTask: send
            - wait: 8s
            - endBackgroundTask: send
          backgroundTaskExpired send:
            - endBackgroundTask: send
      - bundle: com.example.chatty
        on:
          didEnterBackground:
            - beginBackgroundTask: sync
            - wait: 10m
            - endBackgroundTask: sync
    usage:
      - {app: com.example.colorfeed, daily: ["08:00 5m", "13:00 10m", "19:30 20m"]}
      - {app: com.example.messenger, daily: ["08:10 3m", "21:00 10m"]}
    timeline:
      - {at: 17:45, user: launch com.example.chatty}
      - {at: 17:50, user: home}
      - {at: 23:00, user: lock}
      - {at: 23:30, device: {charging: true}}
      - {at: 1d 07:00, device: {charging: false}}
      - {at: 1d 23:00, user: lock}
      - {at: 1d 23:30, device: {charging: true}}
      - {at: 2d 07:00, device: {charging: false}}
      - {at: 2d 23:00, user: lock}
      - {at: 2d 23:30, device: {charging: true}}
      - {at: 3d 07:00, device: {charging: false}}
      - {at: 3d 23:00, user: lock}
      - {at: 3d 23:30, device: {charging: true}}
      - {at: 4d 07:00, device: {charging: false}}
      - {at: 4d 23:00, user: lock}
      - {at: 4d 23:30, device: {charging: true}}
      - {at: 5d 07:00, device: {charging: false}}
      - {at: 5d 23:00, user: lock}
      - {at: 5d 23:30, device: {charging: true}}
      - {at: 6d 07:00, device: {charging: false}}
      - {at: 6d 23:00, user: lock}
      - {at: 6d 23:30, device: {charging: true}}
      - {at: 2d 18:00, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 2d 18:10, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 2d 18:20, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 2d 18:30, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 2d 18:40, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 4d 21:30, user: forceQuit com.example.messenger}
      - {at: 4d 22:00, push: {app: com.example.messenger, type: background, priority: 5}}
      - {at: 4d 22:05, push: {app: com.example.messenger, type: alert}}
    expect:
      # The weekly cleaning runs on power at night, then not again until six days later.
      - {kind: task.start, identifier: com.example.colorfeed.db_cleaning, between: [23:30, 1d 07:00]}
      - {kind: task.start, identifier: com.example.colorfeed.db_cleaning, count: 2}
      # App refresh runs every day, and lands shortly before the breakfast session once learned.
      - {kind: task.start, identifier: com.example.colorfeed.refresh, between: [3d 07:40, 3d 08:00]}
      - {kind: task.complete, identifier: com.example.colorfeed.refresh, success: "false", count: 0}
      - {kind: bgtask.end, app: com.example.messenger, between: [08:13, 08:14]}
      - {kind: terminate, app: com.example.chatty, reason: backgroundTaskTimeout}
      - {kind: terminate, app: com.example.colorfeed, count: 0}
      # The burst: three pushes within the hour, the newest of the rest an hour after the first.
      - {kind: push.deliver, app: com.example.messenger, type: background, between: [2d 18:00, 2d 18:40], count: 3}
      - {kind: push.deliver, app: com.example.messenger, type: background, between: [2d 19:00, 2d 19:00], count: 1}
      # Swiped away: the silent push waits for the person; the alert reaches them at once.
      - {kind: push.drop, app: com.example.messenger, held: true, between: [4d 22:00, 4d 22:00]}
      - {kind: push.deliver, app: com.example.messenger, type: alert, to: user, between: [4d 22:05, 4d 22:05]}
      - {kind: push.deliver, app: com.example.messenger, type: background, between: [5d 08:10, 5d 08:10], count: 1}
    """
}
