"""The README's example: tensors, an op on a stream, events, and the simulated time it took."""

import numpy as np

import wia_hal as wia

wia.set_backend("sim", hardware="nvidia-h100-sxm5-80gb")  # or WIA_SIM_HARDWARE=... in the environment

ctx = wia.create_context()
stream = wia.create_stream(ctx)
a = wia.tensor(np.random.default_rng(0).random((4096, 4096), np.float32), ctx=ctx)
b = wia.tensor(np.ones(4096, np.float32), ctx=ctx)  # broadcasts over rows

start, end = wia.create_event(), wia.create_event()
wia.event_record(start, stream)
c = wia.relu(wia.add(a, b, stream=stream), stream=stream)
wia.event_record(end, stream)
wia.stream_synchronize(stream)

print(f"result[0, :4] = {c.numpy()[0, :4]}")
print(f"add + relu on {wia.get_device_info(ctx.device).name}: {wia.event_elapsed_time(start, end):.3f} ms simulated")
wia.destroy_context(ctx)
