/// The locustfile `bgx fleet loadtest` writes beside the schedule it reads
/// (`schedule.json`): Locust drives the replay, bgx only describes it.
///
/// Arrivals follow the schedule, not the number of users (an open model,
/// as k6's arrival-rate executors): every request has its moment — a
/// stage's k arrivals of a cause spread evenly over the stage, at
/// (j + ½)/k of it — and each user takes the next moment not yet taken,
/// waits for it and sends its request. The users are only how many requests
/// may be in flight at once; a moment that finds every user busy is sent
/// late and counted as late. The `LoadTestShape` holds the stages (each
/// minute of the day, its arrivals per second by cause) and keeps the pool
/// at the same size to the end: Locust stops users it no longer needs
/// mid-wait, which would lose the moments they hold. It ends the test once
/// every moment is sent and answered (or 60 s after the last one).
/// On stop it writes `tally.json`: per stage and cause the requests sent,
/// and how many were late; per cause the response times and errors.
public enum LoadTestLocustfile {
    public static let text = #"""
    # Written by bgx fleet loadtest: replays a fleet's arrivals per minute by cause
    # (schedule.json beside this file). Run: locust --headless -f THIS_FILE --host URL
    import json, math, os, time
    import gevent
    from locust import FastHttpUser, LoadTestShape, events, task, constant

    HERE = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(HERE, "schedule.json")) as f:
        SCHEDULE = json.load(f)
    STAGE = SCHEDULE["stageSeconds"]
    USERS = SCHEDULE["users"]
    LATE = min(0.1, STAGE / 10)  # seconds after its moment a request counts as late
    BODIES = {cause: (b"x" * r["bodyBytes"] if r["bodyBytes"] > 0 else None) for cause, r in SCHEDULE["requests"].items()}

    def moments():
        """Every request's moment (seconds from the replay's start), in order, with its stage and cause."""
        out = []
        for i, stage in enumerate(SCHEDULE["stages"]):
            for cause, k in stage["arrivals"].items():
                out.extend((STAGE * (i + (j + 0.5) / k), i, cause) for j in range(k))
        out.sort()
        return out

    class Replay:
        def __init__(self):
            self.moments = moments()
            self.next = 0
            self.origin = None  # epoch second the replay starts at
            self.in_flight = 0  # moments taken and not yet answered
            n = len(SCHEDULE["stages"])
            self.sent = {c: [0] * n for c in SCHEDULE["causes"]}
            self.late = {c: [0] * n for c in SCHEDULE["causes"]}
            self.latest = {c: 0.0 for c in SCHEDULE["causes"]}
            self.times = {c: [] for c in SCHEDULE["causes"]}
            self.errors = {c: {} for c in SCHEDULE["causes"]}

        def claim(self):
            # gevent is cooperative: nothing runs between reading and moving `next`.
            if self.origin is None:
                # A whole second at least 2 s away: every user is spawned by then,
                # and a server counting per second sees the stages on its own seconds.
                self.origin = math.floor(time.time()) + 2
            if self.next >= len(self.moments):
                return None
            m = self.moments[self.next]
            self.next += 1
            self.in_flight += 1
            return m

        def done(self):
            return self.origin is not None and self.next >= len(self.moments) and self.in_flight == 0

        def tally(self):
            def pct(xs, p):
                return xs[min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))] if xs else None
            causes = {}
            for c in SCHEDULE["causes"]:
                xs = sorted(self.times[c])
                causes[c] = {"sent": self.sent[c], "late": self.late[c], "latestSeconds": round(self.latest[c], 4),
                             "responses": len(xs), "p50": pct(xs, 50), "p90": pct(xs, 90), "p99": pct(xs, 99),
                             "max": xs[-1] if xs else None, "errors": self.errors[c]}
            return {"format": "bgx-loadtest-tally 1", "origin": self.origin, "stageSeconds": STAGE,
                    "claimed": self.next, "moments": len(self.moments), "causes": causes}

    REPLAY = Replay()

    @events.request.add_listener
    def on_request(request_type, name, response_time, response_length, exception=None, **kwargs):
        if name not in REPLAY.times:
            return
        REPLAY.times[name].append(round(response_time, 3))
        if exception is not None:
            text = str(exception).split("\n")[0][:200]
            REPLAY.errors[name][text] = REPLAY.errors[name].get(text, 0) + 1

    @events.test_stop.add_listener
    def on_stop(environment, **kwargs):
        path = os.path.join(HERE, "tally.json")
        with open(path + ".partial", "w") as f:
            json.dump(REPLAY.tally(), f, sort_keys=True)
        os.replace(path + ".partial", path)

    class Device(FastHttpUser):
        wait_time = constant(0)

        @task
        def arrive(self):
            m = REPLAY.claim()
            if m is None:
                gevent.sleep(1)
                return
            at, stage, cause = m
            delay = REPLAY.origin + at - time.time()
            if delay > 0:
                gevent.sleep(delay)
            lateness = -delay
            REPLAY.sent[cause][stage] += 1
            if lateness > LATE:
                REPLAY.late[cause][stage] += 1
            REPLAY.latest[cause] = max(REPLAY.latest[cause], lateness)
            r = SCHEDULE["requests"][cause]
            try:
                self.client.request(r["method"], r["path"], name=cause, headers=r["headers"] or None,
                                    data=BODIES[cause])
            finally:
                REPLAY.in_flight -= 1

    class FleetCurve(LoadTestShape):
        """The stages: each minute of the day replayed, its arrivals per second by cause."""
        stages = [{"clock": s["clock"], "perSecond": {c: k / STAGE for c, k in s["arrivals"].items()}}
                  for s in SCHEDULE["stages"]]

        def tick(self):
            if REPLAY.done():
                return None
            if REPLAY.origin is not None and time.time() > REPLAY.origin + STAGE * len(self.stages) + 60:
                return None  # answers still missing a minute after the last moment: stop waiting
            return (USERS, max(USERS, 1))
    """#
}
