"""The README's example: tensors, an op on a stream, events, and the simulated time it took.

Run: ``python examples/quickstart.py``; on another chip: ``WIA_SIM_HARDWARE=amd-mi300x python examples/quickstart.py``
(a shipped model or the path of a TOML file of your own; docs/hardware_models.md).
"""

import os

import numpy as np

import wia_hal as wia

# The environment's chip if it names one, else the H100. (An explicit hardware= wins over WIA_SIM_HARDWARE, and
# set_backend warns when it overrides it.)
wia.set_backend("sim", hardware=os.environ.get("WIA_SIM_HARDWARE", "nvidia-h100-sxm5-80gb"))

ctx = wia.create_context()
stream = wia.create_stream(ctx)
a = wia.tensor(np.random.default_rng(0).random((4096, 4096), np.float32), ctx=ctx)
b = wia.tensor(np.ones(4096, np.float32), ctx=ctx)  # broadcasts over rows

start, end = wia.create_event(), wia.create_event()
wia.event_record(start, stream)
c = wia.relu(wia.add(a, b, stream=stream), stream=stream)
wia.event_record(end, stream)
wia.stream_synchronize(stream)

info = wia.get_device_info(ctx.device)
print(f"hardware model: {info.name} ({info.model_file})")
print(f"result[0, :4] = {c.numpy()[0, :4]}")
print(f"add + relu on {info.name}: {wia.event_elapsed_time(start, end):.3f} ms simulated")
wia.destroy_context(ctx)
