"""Run a bgx fleet's shards on Dask (`bgx-fleet-dask`, or `python -m bgxfleet`)."""
from .dask_driver import QUIET_CLUSTER, drive, local_cluster, main, merge, run_shard

__all__ = ["QUIET_CLUSTER", "drive", "local_cluster", "main", "merge", "run_shard"]
