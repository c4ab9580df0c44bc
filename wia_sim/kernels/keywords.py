"""Type names OpenCL C 1.2 makes keywords: ``half``, ``bool`` and the image types (Clang: "cannot combine with
previous 'int' declaration specifier", "'half' is a keyword"). A variable or parameter of such a name is a build
error, as on a device. Other built-in type names (``float4``, ``size_t``, ``event_t``, ``sampler_t``) are
typedefs, which a declaration may shadow, as Clang allows."""

from __future__ import annotations

__all__ = ["KEYWORD_TYPES", "keyword_name"]

KEYWORD_TYPES = frozenset(
    {"half", "bool", "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image3d_t"}
)


def keyword_name(name: str | None, what: str) -> str | None:
    """The build error for declaring ``what`` (``variable``, ``parameter``) named ``name``, or None."""
    if name in KEYWORD_TYPES:
        return f"'{name}' is a keyword of OpenCL C (a type name); it cannot name a {what}"
    return None
