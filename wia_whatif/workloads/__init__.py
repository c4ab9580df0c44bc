"""The shipped workloads; importing this package registers them (:func:`wia_whatif.workload.register`)."""
