"""A device's memory as an address space: placement, splitting and coalescing of free ranges.

Capacity questions ("does it fit?") are only honest if they are answered the way a real allocator answers them:
a request fails when no single free range is large enough, even if the free bytes add up.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator


class HeapFullError(Exception):
    """No free range fits; carries the figures an out-of-memory message needs."""

    def __init__(self, requested: int, largest_free: int, total_free: int) -> None:
        super().__init__(
            f"requested {requested} bytes, largest free range {largest_free} bytes, total free {total_free} bytes"
        )
        self.requested = requested
        self.largest_free = largest_free
        self.total_free = total_free


class FreeRanges:
    """The free ranges of ``[0, size)``, sorted by start. Taking a range splits the free one it lies in; giving it
    back merges it with its free neighbours, found by bisection in O(log n)."""

    def __init__(self, size: int) -> None:
        self._starts: list[int] = [0] if size else []
        self._sizes: dict[int, int] = {0: size} if size else {}

    def __iter__(self) -> Iterator[tuple[int, int]]:
        """``(start, size)`` of every free range, by start."""
        return ((start, self._sizes[start]) for start in self._starts)

    def best_fit(self, need: int) -> tuple[int, int] | None:
        """``(start, size)`` of the smallest free range of at least ``need`` bytes (the first of equals)."""
        best: tuple[int, int] | None = None
        for start in self._starts:
            size = self._sizes[start]
            if size >= need and (best is None or size < best[1]):
                best = (start, size)
                if size == need:
                    break
        return best

    def take(self, start: int, need: int) -> None:
        """Remove ``[start, start + need)`` from the free range that begins at ``start``."""
        free = self._sizes.pop(start)
        index = bisect.bisect_left(self._starts, start)
        if free == need:
            del self._starts[index]
        else:
            self._starts[index] = start + need
            self._sizes[start + need] = free - need

    def give_back(self, start: int, size: int) -> None:
        """Free ``[start, start + size)`` again, merged with the free ranges around it."""
        index = bisect.bisect_left(self._starts, start)
        end = start + size
        if index < len(self._starts) and self._starts[index] == end:
            end += self._sizes.pop(end)
            del self._starts[index]
        if index > 0:
            before = self._starts[index - 1]
            if before + self._sizes[before] == start:
                start = before
                index -= 1
                del self._starts[index]
                del self._sizes[before]
        self._starts.insert(index, start)
        self._sizes[start] = end - start

    def largest(self) -> int:
        return max(self._sizes.values(), default=0)

    def total(self) -> int:
        return sum(self._sizes.values())


class Heap:
    """Best-fit allocator over ``[0, size)`` with ``alignment``-sized granules."""

    def __init__(self, size: int, alignment: int) -> None:
        self.size = size - size % alignment
        self.alignment = alignment
        self._free = FreeRanges(self.size)
        self._used: dict[int, int] = {}
        self.bytes_in_use = 0

    def rounded(self, nbytes: int) -> int:
        a = self.alignment
        return max(a, (nbytes + a - 1) // a * a)

    def allocate(self, nbytes: int) -> int:
        """Place ``nbytes`` (rounded up to the alignment) and return its address."""
        need = self.rounded(nbytes)
        found = self._free.best_fit(need)
        if found is None:
            raise HeapFullError(nbytes, self.largest_free(), self.total_free())
        address = found[0]
        self._free.take(address, need)
        self._used[address] = need
        self.bytes_in_use += need
        return address

    def release(self, address: int) -> int:
        """Return the range at ``address`` to the free list; gives the bytes released."""
        size = self._used.pop(address)
        self.bytes_in_use -= size
        self._free.give_back(address, size)
        return size

    def total_free(self) -> int:
        return self.size - self.bytes_in_use

    def largest_free(self) -> int:
        return self._free.largest()

    def free_ranges(self) -> list[tuple[int, int]]:
        """``(address, size)`` of every free range, by address."""
        return list(self._free)

    def used_ranges(self) -> list[tuple[int, int]]:
        return sorted(self._used.items())
