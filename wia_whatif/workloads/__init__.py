"""The shipped workloads; importing this package registers them (:func:`wia_whatif.workload.register`)."""

from wia_whatif.workload import register
from wia_whatif.workloads import mlp  # noqa: F401  (registers "mlp")
from wia_whatif.workloads.resnet import RESNET50
from wia_whatif.workloads.transformer import TRANSFORMER

register(TRANSFORMER)
register(RESNET50)
