"""Images and samplers (OpenCL C 1.2, 6.12.14): the checker takes them, so that a program mixing image kernels
with buffer kernels builds, as on PoCL 3.1 and Oclgrind 21.10, and its buffer kernels run. The simulator has no
image memory objects (nor has the HAL), so a kernel that uses images, itself or through the functions it calls, is
refused when it is created (``KernelInfo.unsupported``), never run.

Image types may be function parameters (6.9 b: nothing else); ``sampler_t`` also a variable, at program scope a
constant one (6.12.14.1). The read, write and query built-ins are typed as 6.12.14.2-6.12.14.5 declare them; the
``CLK_*`` sampler and channel constants are the preprocessor's (``preprocess.PREDEFINED_MACROS``)."""

from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from wia_sim.kernels.types import INT, ULONG, VOID, TypeInfo

__all__ = ["BUILTINS", "IMAGE_TYPES", "SAMPLER", "UNSUPPORTED", "check_call", "misuse", "usable"]

Error = Callable[[c_ast.Node, str], None]

IMAGE_TYPES = frozenset(
    {"image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image3d_t"}
)
SAMPLER = "sampler_t"
UNSUPPORTED = "images and samplers are not supported by the simulator (the HAL has no image memory objects)"

_VEC4 = {"f": TypeInfo("vector", "float", 4), "i": TypeInfo("vector", "int", 4), "ui": TypeInfo("vector", "uint", 4)}
BUILTINS: dict[str, tuple[int, int]] = {
    **{f"read_image{s}": (2, 3) for s in _VEC4},  # (image, [sampler,] coord): 1.2 adds the sampler-less reads
    **{f"write_image{s}": (3, 3) for s in _VEC4},  # (image, coord, color)
    **dict.fromkeys(
        (
            "get_image_width",
            "get_image_height",
            "get_image_depth",
            "get_image_channel_data_type",
            "get_image_channel_order",
            "get_image_dim",
            "get_image_array_size",
        ),
        (1, 1),
    ),
}
"""The image built-ins, with their (fewest, most) arguments."""


MEASURED = frozenset({"sizeof", "_Alignof", "alignof", "vec_step"})
"""The operators that may take an image or sampler type (OpenCL C 1.2 6.3 k: ``sizeof`` of one is implementation-
defined; 8 and 8 on PoCL 3.1 and Oclgrind 21.10, a handle's, as ``structs.size_align`` gives), on any device: the
type is named, no image is used."""


def usable(t: TypeInfo, what: str) -> bool:
    """Whether a declaration of type ``t`` (``what``: "parameter 'x'", "variable 'x'", "typedef 'x'", ...) may
    have an image or sampler type: an image only as a parameter (or a typedef's), a sampler also as a variable
    (not in __global or __local memory); the operand of ``sizeof`` or ``_Alignof`` (``MEASURED``), either."""
    if what in MEASURED and (t.name in IMAGE_TYPES or t.name == SAMPLER):
        return True
    if t.name in IMAGE_TYPES:
        return what.startswith(("parameter", "typedef"))
    if t.name == SAMPLER and t.space in ("global", "local"):
        return False
    return t.name == SAMPLER and what.startswith(("parameter", "variable", "typedef"))


def misuse(t: TypeInfo, outer: str) -> str:
    """Clang's error for an image or sampler type where ``usable`` refuses it, as the target of a type of kind
    ``outer`` ("pointer", "array"; "" at the top), or "" for another opaque type."""
    if t.name not in IMAGE_TYPES and t.name != SAMPLER:
        return ""
    if outer == "pointer":
        return f"pointer to type '{t.name}' is invalid in OpenCL"
    if outer == "array":
        return f"array of '{t.name}' type is invalid in OpenCL"
    if t.name == SAMPLER:
        return "sampler type cannot be used with the __local and __global address space qualifiers"
    return f"type '{t.name}' can only be used as a function parameter in OpenCL"


def check_call(name: str, args: list[c_ast.Node], types: list[TypeInfo], error: Error, node: c_ast.Node) -> TypeInfo:
    """The result type of a call to one of ``BUILTINS``; the first argument must be an image (arity checked)."""
    image = types[0]
    if image.kind != "unknown" and image.name not in IMAGE_TYPES:
        error(args[0], f"the first argument of '{name}' must be an image, not '{image}'")
    if name.startswith("read_image") and len(args) == 3 and types[1].kind != "unknown" and types[1].name != SAMPLER:
        error(args[1], f"the second argument of '{name}' must be a sampler_t, not '{types[1]}'")
    if name.startswith("read_image"):
        return _VEC4[name[len("read_image") :]]
    if name.startswith("write_image"):
        return VOID
    if name == "get_image_dim":
        return TypeInfo("vector", "int", 4 if image.name == "image3d_t" else 2)
    if name == "get_image_array_size":
        return ULONG
    return INT
