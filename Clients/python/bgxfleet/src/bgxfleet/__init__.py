"""Run a bgx fleet's shards on Dask (`bgx-fleet-dask`, or `python -m bgxfleet`)."""
from .dask_driver import main, merge, run_shard

__all__ = ["main", "merge", "run_shard"]
