"""Capacity what-if studies: workloads written against the public HAL, run on simulated hardware variations.

``wia_whatif`` sits above ``wia_hal`` (it runs programs through the public API only) and reads hardware models
through the sim backend's options; ``wia-sim whatif`` is its command line (docs/whatif.md).
"""

from wia_whatif.workload import Counts, RunReport, Workload, WorkloadParams, available_workloads, get_workload

__all__ = ["Counts", "RunReport", "Workload", "WorkloadParams", "available_workloads", "get_workload"]
