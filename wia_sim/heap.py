"""A device's memory as an address space: placement, splitting and coalescing of free ranges.

Capacity questions ("does it fit?") are only honest if they are answered the way a real allocator answers them:
a request fails when no single free range is large enough, even if the free bytes add up.
"""

from __future__ import annotations

import bisect


class HeapFullError(Exception):
    """No free range fits; carries the figures an out-of-memory message needs."""

    def __init__(self, requested: int, largest_free: int, total_free: int) -> None:
        super().__init__(
            f"requested {requested} bytes, largest free range {largest_free} bytes, total free {total_free} bytes"
        )
        self.requested = requested
        self.largest_free = largest_free
        self.total_free = total_free


class Heap:
    """Best-fit allocator over ``[0, size)`` with ``alignment``-sized granules.

    Free ranges are kept sorted by address, so a freed range merges with its neighbours in O(log n).
    """

    def __init__(self, size: int, alignment: int) -> None:
        self.size = size - size % alignment
        self.alignment = alignment
        self._free_starts: list[int] = [0] if self.size else []
        self._free_sizes: dict[int, int] = {0: self.size} if self.size else {}
        self._used: dict[int, int] = {}
        self.bytes_in_use = 0

    def rounded(self, nbytes: int) -> int:
        a = self.alignment
        return max(a, (nbytes + a - 1) // a * a)

    def allocate(self, nbytes: int) -> int:
        """Place ``nbytes`` (rounded up to the alignment) and return its address."""
        need = self.rounded(nbytes)
        best = -1
        best_size = 0
        for start in self._free_starts:
            size = self._free_sizes[start]
            if size >= need and (best < 0 or size < best_size):
                best, best_size = start, size
                if size == need:
                    break
        if best < 0:
            raise HeapFullError(nbytes, self.largest_free(), self.total_free())
        del self._free_sizes[best]
        index = bisect.bisect_left(self._free_starts, best)
        if best_size == need:
            del self._free_starts[index]
        else:
            self._free_starts[index] = best + need
            self._free_sizes[best + need] = best_size - need
        self._used[best] = need
        self.bytes_in_use += need
        return best

    def release(self, address: int) -> int:
        """Return the range at ``address`` to the free list; gives the bytes released."""
        size = self._used.pop(address)
        self.bytes_in_use -= size
        index = bisect.bisect_left(self._free_starts, address)
        start, end = address, address + size
        if index < len(self._free_starts) and self._free_starts[index] == end:
            end += self._free_sizes.pop(end)
            del self._free_starts[index]
        if index > 0:
            before = self._free_starts[index - 1]
            if before + self._free_sizes[before] == start:
                start = before
                index -= 1
                del self._free_starts[index]
                del self._free_sizes[before]
        self._free_starts.insert(index, start)
        self._free_sizes[start] = end - start
        return size

    def total_free(self) -> int:
        return self.size - self.bytes_in_use

    def largest_free(self) -> int:
        return max(self._free_sizes.values(), default=0)

    def free_ranges(self) -> list[tuple[int, int]]:
        """``(address, size)`` of every free range, by address."""
        return [(start, self._free_sizes[start]) for start in self._free_starts]

    def used_ranges(self) -> list[tuple[int, int]]:
        return sorted(self._used.items())
