"""wia_sim: a discrete-event model of an AI accelerator on SimPy (devices, engines, memory, links, cost models).

It knows nothing of the HAL: it is a machine that any API could drive.
"""
