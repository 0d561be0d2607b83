/// The built-in scenario `bgx demo` runs (DESIGN.md "Command line").
/// For now the foundation's part of it: background tasks around a trip to
/// the home screen. ColorFeed joins when BGTaskScheduler does.
public enum Demo {
    public static let file = "<demo>"
    public static let scenario = """
    # A day with two messaging apps (SPEC §1, §2).
    # com.example.messenger: a send that outlives a trip to the home screen.
    #   At 08:00 the send takes 8 s and ends its background task in time.
    #   At 12:30 a large photo takes 2 minutes; the expiration handler
    #   saves a draft and ends the task, so the app is suspended, not killed.
    # com.example.chatty: begins a background task and never ends it;
    #   iOS kills it when the 30 s budget runs out (backgroundTaskTimeout).
    profile: modern
    seed: 7
    start: 2026-01-05T00:00:00
    duration: 1d
    device: {battery: 80%, charging: false, network: wifi, passcode: true}
    apps:
      - bundle: com.example.messenger
        on:
          didEnterBackground:
            - beginBackgroundTask: send
            - wait: 8s
            - endBackgroundTask: send
          backgroundTaskExpired send:
            - work: 1s
            - endBackgroundTask: send
      - bundle: com.example.messenger.photos
        on:
          didEnterBackground:
            - beginBackgroundTask: upload
            - wait: 2m
            - endBackgroundTask: upload
          backgroundTaskExpired upload:
            - work: 500ms
            - endBackgroundTask: upload
      - bundle: com.example.chatty
        on:
          didEnterBackground:
            - beginBackgroundTask: sync
            - wait: 10m
    usage:
      - {app: com.example.messenger, daily: ["08:00 3m", "19:00 10m"]}
    timeline:
      - {at: 12:30, user: launch com.example.messenger.photos}
      - {at: 12:32, user: home}
      - {at: 17:45, user: launch com.example.chatty}
      - {at: 17:50, user: lock}
    expect:
      - {kind: bgtask.end, app: com.example.messenger, between: [08:03, 08:04]}
      - {kind: bgtask.expire, app: com.example.messenger.photos, between: [12:32, 12:33]}
      - {kind: state, app: com.example.messenger.photos, to: suspended, between: [12:32, 12:33]}
      - {kind: terminate, app: com.example.chatty, reason: backgroundTaskTimeout}
      - {kind: terminate, app: com.example.messenger, count: 0}
    """
}
