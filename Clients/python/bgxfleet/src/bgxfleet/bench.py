"""Measure a fleet in one go: one bgx process, then Dask with one worker and with two.

    bgx-fleet-bench SCENARIO --devices N --days D [--shards K] [--bgx PATH] [--out DIR]

Runs `bgx fleet SCENARIO --devices N --days D` as one process, then the same
fleet's K shards through `bgx-fleet-dask` on a LocalCluster of one worker
and of two (cluster start and merges included: what a user waits for; Dask
is imported before the first, so neither pays for that), checks that both
merged results equal the single process's byte for byte, and prints the
device-days per second of each and the speed-up from one worker to two.

Each line also says where the time went: the CPU seconds of bgx's processes
(shards and merges), those of everything else (Dask's scheduler, nannies,
workers and this driver), and how busy bgx kept the workers - bgx's CPU
seconds over workers x wall seconds; what is missing is time a worker spent
idle or lost its core to something else on the machine.
"""
import argparse
import filecmp
import os
import resource
import sys
import tempfile
import time

from . import dask_driver

FILES = ["fleet.json", "arrivals.csv", "delays.csv", "reasons.csv", "population.csv"]


def cpu_seconds():
    """CPU seconds of this process and of its children that have been waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measured(action):
    """Runs `action` (which returns bgx's CPU seconds): wall seconds, bgx's CPU seconds, everything else's."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    bgx = action()
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return wall, bgx, max(0.0, cpu - bgx)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bgx-fleet-bench", description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--days", type=int, required=True)
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--bgx", help="the bgx executable (default: on PATH, else .build/release or .build/debug)")
    parser.add_argument("--out", help="keep the results here (default: a temporary directory)")
    args = parser.parse_args(argv)
    bgx = dask_driver.find_bgx(args.bgx)
    out = args.out or tempfile.mkdtemp(prefix="bgx-fleet-bench-")
    device_days = args.devices * args.days
    print(f"bgx-fleet-bench: {args.devices} devices x {args.days} days = {device_days} device-days, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)
    import dask.distributed  # noqa: F401  (imported here so that neither timed Dask run pays for it)

    single = os.path.join(out, "single")

    def one_process():
        status, stderr, cpu = dask_driver.run_bgx([bgx, "fleet", args.scenario, "--devices", str(args.devices),
                                                   "--days", str(args.days), "--out", single])
        if status != 0:
            sys.exit(f"error: bgx fleet failed ({status}): {stderr}")
        return cpu

    results = [("one process", 1, *measured(one_process), single)]
    for workers in (1, 2):
        target = os.path.join(out, f"dask-{workers}")
        results.append((f"Dask, {workers} worker{'s' if workers > 1 else ''}", workers, *measured(
            lambda: dask_driver.drive(bgx, args.scenario, args.devices, args.shards, target, days=args.days,
                                      workers=workers)), target))
    for name, workers, seconds, bgx_cpu, other_cpu, directory in results:
        same = all(filecmp.cmp(os.path.join(single, f), os.path.join(directory, f), shallow=False) for f in FILES)
        print(f"  {name:<16} {seconds:8.1f} s  {device_days / seconds:8.0f} device-days/s"
              f"  CPU: bgx {bgx_cpu:.1f} s, other {other_cpu:.1f} s;"
              f" bgx kept {'the worker' if workers == 1 else f'{workers} workers'}"
              f" {100 * bgx_cpu / (workers * seconds):.0f}% busy"
              + ("" if directory == single else ("  same bytes as one process" if same else "  DIFFERS")), flush=True)
        if not same:
            return 1
    print(f"  speed-up from one Dask worker to two: {results[1][2] / results[2][2]:.2f}x "
          f"(load now {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
