"""Measure a fleet in one go: one bgx process, then Dask with one worker and with two.

    bgx-fleet-bench SCENARIO --devices N --days D [--shards K] [--bgx PATH] [--out DIR]

Runs `bgx fleet SCENARIO --devices N --days D` as one process, then the same
fleet's K shards through `bgx-fleet-dask` on a LocalCluster of one worker
and of two (cluster start and merges included: what a user waits for), checks
that both merged results equal the single process's byte for byte, and prints
the device-days per second of each and the speed-up from one worker to two.
"""
import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

from . import dask_driver

FILES = ["fleet.json", "arrivals.csv", "delays.csv", "reasons.csv", "population.csv"]


def timed(action):
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bgx-fleet-bench", description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--days", type=int, required=True)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--bgx", help="the bgx executable (default: on PATH, else .build/release or .build/debug)")
    parser.add_argument("--out", help="keep the results here (default: a temporary directory)")
    args = parser.parse_args(argv)
    bgx = dask_driver.find_bgx(args.bgx)
    out = args.out or tempfile.mkdtemp(prefix="bgx-fleet-bench-")
    device_days = args.devices * args.days
    print(f"bgx-fleet-bench: {args.devices} devices x {args.days} days = {device_days} device-days, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)

    single = os.path.join(out, "single")

    def one_process():
        subprocess.run([bgx, "fleet", args.scenario, "--devices", str(args.devices), "--days", str(args.days),
                        "--out", single], check=True, stdout=subprocess.DEVNULL)

    results = [("one process", timed(one_process), single)]
    for workers in (1, 2):
        target = os.path.join(out, f"dask-{workers}")
        seconds = timed(lambda: dask_driver.main([
            args.scenario, "--devices", str(args.devices), "--days", str(args.days), "--shards", str(args.shards),
            "--workers", str(workers), "--bgx", bgx, "--out", target, "--quiet"]))
        results.append((f"Dask, {workers} worker{'s' if workers > 1 else ''}", seconds, target))
    for name, seconds, directory in results:
        same = all(filecmp.cmp(os.path.join(single, f), os.path.join(directory, f), shallow=False) for f in FILES)
        print(f"  {name:<16} {seconds:8.1f} s  {device_days / seconds:8.0f} device-days/s"
              + ("" if directory == single else ("  same bytes as one process" if same else "  DIFFERS")))
        if not same:
            return 1
    print(f"  speed-up from one Dask worker to two: {results[1][1] / results[2][1]:.2f}x "
          f"(load now {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
