"""The shipped workloads; importing this package registers them (:func:`wia_whatif.workload.register`)."""

from wia_whatif.workloads import mlp  # noqa: F401  (registers "mlp")
