"""Run a bgx fleet's shards on Dask and merge them as they finish.

Each shard is one `bgx fleet SCENARIO --devices N --shard I/K` process, run
as a Dask task (retried when it fails); each finished shard is added into
OUT with `bgx fleet merge`, so OUT always holds the shards done so far and,
at the end, the whole fleet - byte for byte what one process would write.

    bgx-fleet-dask SCENARIO --devices N --shards K --out DIR
        [--days D] [--workers W] [--scheduler ADDRESS] [--bgx PATH] [--retries R]

Without --scheduler it starts a LocalCluster of W worker processes; with
--scheduler tcp://HOST:PORT it uses that cluster (dask-jobqueue,
dask-kubernetes ...): the bgx binary and the scenario must then be at the
same paths on the workers. `pip install ./Clients/python/bgxfleet` installs
it with Dask.
"""
import argparse
import os
import shutil
import subprocess
import sys


def run_shard(bgx, scenario, devices, days, index, count, out):
    """One shard, as its own bgx process; raises (so Dask retries) when it fails."""
    command = [bgx, "fleet", scenario, "--devices", str(devices), "--shard", f"{index}/{count}", "--out", out]
    if days:
        command += ["--days", str(days)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"shard {index}/{count} failed ({done.returncode}): {done.stderr.strip()}")
    return out


def merge(bgx, directories, out):
    done = subprocess.run([bgx, "fleet", "merge", *directories, "--out", out], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"merge failed: {done.stderr.strip()}")


def find_bgx(given):
    if given:
        return os.path.abspath(given)
    # On PATH, else built in the repository the command is run from.
    for candidate in (shutil.which("bgx"), os.path.join(".build", "release", "bgx"),
                      os.path.join(".build", "debug", "bgx")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("error: no bgx executable found: build it (swift build) or pass --bgx PATH")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bgx-fleet-dask", description="Run a bgx fleet's shards on Dask and merge them.")
    parser.add_argument("scenario")
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--days", type=int)
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--scheduler", help="address of an existing Dask scheduler instead of a LocalCluster")
    parser.add_argument("--bgx", help="the bgx executable (default: on PATH, else .build/release or .build/debug)")
    parser.add_argument("--retries", type=int, default=2, help="retries of a failed shard (default 2)")
    parser.add_argument("--quiet", action="store_true", help="no line per merged shard")
    args = parser.parse_args(argv)
    if args.shards < 1 or args.devices < 1:
        sys.exit("error: --devices and --shards must be at least 1")

    from dask.distributed import Client, LocalCluster, as_completed

    bgx = find_bgx(args.bgx)
    scenario = os.path.abspath(args.scenario)
    out = os.path.abspath(args.out)
    shards = os.path.join(out, "shards")
    os.makedirs(shards, exist_ok=True)
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [client.submit(run_shard, bgx, scenario, args.devices, args.days, i, args.shards,
                                 os.path.join(shards, str(i)), key=f"bgx-fleet-shard-{i}-of-{args.shards}",
                                 retries=args.retries, pure=False)
                   for i in range(args.shards)]
        merged = 0
        for future in as_completed(futures):
            shard = future.result()
            if merged == 0:
                merge(bgx, [shard], out)
            else:
                merge(bgx, [out, shard], out)
            merged += 1
            if not args.quiet:
                print(f"bgx-fleet-dask: {merged}/{args.shards} shards merged into {out}", flush=True)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
