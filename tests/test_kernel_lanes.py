"""Work-item ids of an NDRange, as the executor's lanes see them, against OpenCL's definitions."""

from __future__ import annotations

import numpy as np
import pytest

from wia_sim.kernels.lanes import Geometry, Lanes


def test_ids_follow_opencl_definitions() -> None:
    g = Geometry(global_size=(8, 6, 1), local_size=(4, 3, 1), global_offset=(10, 0, 0), work_dim=2)
    lanes = Lanes(g)
    assert g.num_groups == (2, 2, 1) and lanes.total == 48
    seen = set()
    for lane in range(lanes.total):
        gid = tuple(int(lanes.global_id[d][lane]) for d in range(3))
        lid = tuple(int(lanes.local_id[d][lane]) for d in range(3))
        grp = tuple(int(lanes.group_id[d][lane]) for d in range(3))
        for d in range(3):  # get_global_id = get_group_id * get_local_size + get_local_id + get_global_offset
            assert gid[d] == grp[d] * g.local_size[d] + lid[d] + g.global_offset[d]
        seen.add(gid)
    assert len(seen) == 48  # every work-item exactly once
    # lanes of one work-group are contiguous
    assert (np.diff(lanes.group) >= 0).all()


def test_global_size_must_be_a_multiple_of_the_local_size() -> None:
    with pytest.raises(ValueError, match="not a multiple"):
        Geometry(global_size=(10, 1, 1), local_size=(4, 1, 1))
