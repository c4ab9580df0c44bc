"""The data types of SPEC 3.7 (binding) and how user input names them."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from wia_hal.errors import InvalidValueError, NotSupportedError
from wia_hal.models import DeviceCapabilities

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
int8 = np.dtype(np.int8)
int32 = np.dtype(np.int32)
float64 = np.dtype(np.float64)
bool_ = np.dtype(np.bool_)

DTYPES: dict[str, np.dtype] = {d.name: d for d in (float32, float16, bfloat16, int8, int32, float64, bool_)}

_CAPABILITY = {
    float16: "supports_float16",
    bfloat16: "supports_bfloat16",
    int8: "supports_int8",
    float64: "supports_float64",
}


def as_dtype(value: object) -> np.dtype:
    """A WIA dtype from a name (``"bfloat16"``), a NumPy dtype or scalar type, or ``ml_dtypes.bfloat16``."""
    dtype: np.dtype | None = None
    if value is not None:  # np.dtype(None) would silently mean float64
        try:
            dtype = np.dtype(value)  # type: ignore[call-overload]
        except TypeError:
            dtype = None
    if dtype is None or dtype.name not in DTYPES:
        shown = dtype.name if dtype is not None else repr(value)
        raise InvalidValueError(f"dtype {shown} is not a WIA data type; expected one of {', '.join(DTYPES)}")
    return DTYPES[dtype.name]


def check_supported(dtype: np.dtype, caps: DeviceCapabilities, device_name: str) -> None:
    """Raise ``NOT_SUPPORTED`` when the device does not claim ``dtype`` (capabilities are truthful)."""
    flag = _CAPABILITY.get(dtype)
    if flag is not None and not getattr(caps, flag):
        raise NotSupportedError(f"{device_name} does not support {dtype.name} ({flag} is False)")
