"""The ``opencl`` backend: WIA-AI-011 on a real OpenCL device through PyOpenCL (``pip install 'wia[opencl]'``).

Modules by job: ``status`` (the one mapping of OpenCL status codes to WIA errors), ``discovery`` (device selection,
reported and measured properties), ``handles`` and ``buffers`` (memory types and copies), ``templates`` (the op
kernels' OpenCL C), ``programs`` (building them once), ``ops`` (launching them), ``backend`` (the protocol).
Importing the package needs no PyOpenCL; creating the backend without it is ``INVALID_VALUE`` saying how to get it.
"""

from wia_hal.backends.opencl.backend import OpenCLBackend

__all__ = ["OpenCLBackend"]
