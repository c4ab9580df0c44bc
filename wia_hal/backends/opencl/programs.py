"""Building programs with the driver, once per (device, source, options) in a process, and the kernels in them.

Every backend on one device shares one OpenCL context and its programs (:func:`for_device`): a second backend
instance, or the suite's next run in the same process, compiles nothing again.
"""

from __future__ import annotations

import shlex
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from wia_hal.backends.opencl.status import checked, cl
from wia_hal.errors import InvalidKernelError


class Programs:
    """The programs built on one device, keyed by source and options; each kernel object is made once (a launch
    sets its arguments and enqueues it at once, and OpenCL captures the arguments at enqueue)."""

    def __init__(self, context: Any, device: Any) -> None:
        self.context = context
        self.device = device
        self._programs: dict[tuple[str, tuple[str, ...]], Any] = {}
        self._kernels: dict[tuple[str, tuple[str, ...], str], Any] = {}

    def build(self, source: str, options: tuple[str, ...] = ()) -> Any:
        """The built program; a build failure is ``CompileError`` with the driver's build log."""
        key = (source, options)
        program = self._programs.get(key)
        if program is None:
            with warnings.catch_warnings(), checked("build an OpenCL program"):
                warnings.simplefilter("ignore")  # PyOpenCL warns of any compiler output; a failure is raised
                program = cl.Program(self.context, source).build(options=list(options))
            self._programs[key] = program
        return program

    def kernel(self, source: str, name: str, options: tuple[str, ...] = ()) -> Any:
        """Kernel ``name`` of the program of ``source`` (built first when needed)."""
        key = (source, options, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            program = self.build(source, options)
            with checked(f"create kernel {name!r}"):
                kernel = cl.Kernel(program, name)
            self._kernels[key] = kernel
        return kernel

    def user_kernel(self, source: str, name: str, options: str) -> Any:
        """A custom kernel: built with ``-cl-kernel-arg-info`` and the user's options (a new kernel object per
        call: each has its own arguments). An unknown ``name`` is ``InvalidKernelError`` naming those there are."""
        program = self.build(source, ("-cl-kernel-arg-info", *shlex.split(options)))
        names = [n for n in str(program.get_info(cl.program_info.KERNEL_NAMES)).split(";") if n]
        if name not in names:
            raise InvalidKernelError(f"no kernel {name!r} in the source; its kernels: {', '.join(names) or 'none'}")
        with checked(f"create kernel {name!r}"):
            return cl.Kernel(program, name)

    def sizes_of(self, source: str, options: str, type_names: Sequence[str]) -> list[int]:
        """``sizeof`` of each type in ``type_names`` (spelled as kernel argument info spells them: ``struct P``,
        ``P``) as the device compiles ``source``: a probe kernel appended to the source writes them. Kernel
        argument info does not give the size of a struct passed by value, which the front end checks."""
        probe = "\n".join(f"    out[{k}] = sizeof({t});" for k, t in enumerate(type_names))
        text = f"{source}\n__kernel void wia_sizeof_probe_(__global ulong* out)\n{{\n{probe}\n}}\n"
        program = self.build(text, tuple(shlex.split(options)))
        with checked("measure the size of struct kernel arguments"):
            kernel = cl.Kernel(program, "wia_sizeof_probe_")
            out = np.zeros(len(type_names), np.uint64)
            queue = cl.CommandQueue(self.context)
            buf = cl.Buffer(self.context, cl.mem_flags.WRITE_ONLY, out.nbytes)
            kernel.set_args(buf)
            cl.enqueue_nd_range_kernel(queue, kernel, (1,), None)
            cl.enqueue_copy(queue, out, buf)
            queue.finish()
        return [int(v) for v in out]


_SHARED: dict[int, Programs] = {}


def for_device(device: Any) -> Programs:
    """The programs of ``device`` (and the context they are built in), made once per process."""
    key = int(device.int_ptr)
    if key not in _SHARED:
        with checked(f"create a context on {device.name.strip()!r}"):
            _SHARED[key] = Programs(cl.Context([device]), device)
    return _SHARED[key]


__all__ = ["Programs", "for_device"]
