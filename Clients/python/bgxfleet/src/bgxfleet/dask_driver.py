"""Run a bgx fleet's shards on Dask and merge them as they finish.

Each shard is one `bgx fleet SCENARIO --devices N --shard I/K` process, run
as a Dask task (retried when it fails); each finished shard is added into
OUT with `bgx fleet merge`, so OUT always holds the shards done so far and,
at the end, the whole fleet - byte for byte what one process would write.

    bgx-fleet-dask SCENARIO --devices N --shards K --out DIR
        [--days D] [--workers W] [--scheduler ADDRESS] [--bgx PATH] [--retries R]

Without --scheduler it starts a LocalCluster of W worker processes, one
thread each, with Dask's own bookkeeping slowed down (QUIET_CLUSTER); with
--scheduler tcp://HOST:PORT it uses that cluster (dask-jobqueue,
dask-kubernetes ...) as it is configured: the bgx binary and the scenario
must then be at the same paths on the workers. `pip install
./Clients/python/bgxfleet` installs it with Dask.
"""
import argparse
import contextlib
import os
import shutil
import subprocess
import sys

# Dask's defaults suit tasks that run Python in the worker: a sampling
# profiler every 10 ms, an event-loop health tick every 20 ms, a memory check
# every 100 ms and a system monitor every 500 ms, in every worker and in the
# driver (scheduler and nannies). A shard task only waits for its bgx
# process, so none of that has anything to observe, yet on an otherwise idle
# LocalCluster of two workers it costs about a tenth of a core - taken from
# the shards whenever there is a worker per core. Slowed down as below it is
# about a hundredth. The nanny still kills a worker over its memory limit (a
# second later at worst) and the dashboard still works, without the profile.
QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def run_bgx(command):
    """Runs a bgx command; its exit status, standard error and CPU seconds (user + system)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with process.stderr:
        stderr = process.stderr.read().decode(errors="replace")
    # wait4, not Popen.wait: it also gives the process's own resource usage.
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, stderr.strip(), usage.ru_utime + usage.ru_stime


def run_shard(bgx, scenario, devices, days, index, count, out):
    """One shard, as its own bgx process: (out, its CPU seconds); raises (so Dask retries) when it fails."""
    command = [bgx, "fleet", scenario, "--devices", str(devices), "--shard", f"{index}/{count}", "--out", out]
    if days:
        command += ["--days", str(days)]
    status, stderr, cpu = run_bgx(command)
    if status != 0:
        raise RuntimeError(f"shard {index}/{count} failed ({status}): {stderr}")
    return out, cpu


def merge(bgx, directories, out):
    """`bgx fleet merge DIRECTORIES --out OUT`: its CPU seconds."""
    status, stderr, cpu = run_bgx([bgx, "fleet", "merge", *directories, "--out", out])
    if status != 0:
        raise RuntimeError(f"merge failed: {stderr}")
    return cpu


def find_bgx(given):
    if given:
        return os.path.abspath(given)
    # On PATH, else built in the repository the command is run from.
    for candidate in (shutil.which("bgx"), os.path.join(".build", "release", "bgx"),
                      os.path.join(".build", "debug", "bgx")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("error: no bgx executable found: build it (swift build) or pass --bgx PATH")


@contextlib.contextmanager
def local_cluster(workers):
    """A LocalCluster of `workers` processes with one thread each, quiet (QUIET_CLUSTER), and its client."""
    import dask
    from dask.distributed import Client, LocalCluster

    # The nannies hand the configuration current when they start to their
    # worker processes, so it must be set while the cluster is made.
    with dask.config.set(QUIET_CLUSTER):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        try:
            client = Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()


def drive(bgx, scenario, devices, shards, out, days=None, workers=2, scheduler=None, retries=2, say=None):
    """Runs the fleet's shards on Dask, merging each into OUT as it finishes; the CPU seconds of bgx's processes."""
    from dask.distributed import Client, as_completed

    scenario = os.path.abspath(scenario)
    out = os.path.abspath(out)
    shard_dirs = os.path.join(out, "shards")
    os.makedirs(shard_dirs, exist_ok=True)
    if scheduler:
        cluster = contextlib.closing(Client(scheduler))
    else:
        cluster = local_cluster(workers)
    bgx_cpu = 0.0
    with cluster as client:
        futures = [client.submit(run_shard, bgx, scenario, devices, days, i, shards,
                                 os.path.join(shard_dirs, str(i)), key=f"bgx-fleet-shard-{i}-of-{shards}",
                                 retries=retries, pure=False)
                   for i in range(shards)]
        merged = 0
        for future in as_completed(futures):
            shard, cpu = future.result()
            bgx_cpu += cpu + merge(bgx, [shard] if merged == 0 else [out, shard], out)
            merged += 1
            if say:
                say(f"bgx-fleet-dask: {merged}/{shards} shards merged into {out}")
    return bgx_cpu


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
    drive(find_bgx(args.bgx), args.scenario, args.devices, args.shards, args.out, days=args.days,
          workers=args.workers, scheduler=args.scheduler, retries=args.retries,
          say=None if args.quiet else (lambda line: print(line, flush=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
