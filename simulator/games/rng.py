"""Per-game random numbers for numba kernels: SplitMix64 on a one-element uint64 state array.

A game owns its stream: the kernel seeds `state[0]` from the game seed and draws everything (the
deal, then every random decision of the policies) from it, in a fixed order. Nothing depends on
numba's global generator, the thread or the worker process, so a game replays exactly from
(params, seating, seed, rotation). SplitMix64 passes BigCrush and needs one add, two multiplies
and three shifts per draw.
"""

import math

import numpy as np
from numba import njit

from simulator.games import kernel_cache  # noqa: F401  installs the kernel cache locator before any kernel below

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30 = np.uint64(30)
_SHIFT_27 = np.uint64(27)
_SHIFT_31 = np.uint64(31)
_SHIFT_11 = np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, nogil=True)
def new_state(seed):
    """A fresh generator state for a game seed (any uint64)."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    return state


@njit(cache=True, nogil=True)
def next_u64(state):
    state[0] = state[0] + _GOLDEN_GAMMA
    return mixed(state[0])


@njit(cache=True, nogil=True)
def mixed(z):
    """SplitMix64's output for the counter value z."""
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


@njit(cache=True, nogil=True)
def randint_at(seed, index, n):
    """The integer in [0, n) that randint(new_state(seed), n) draws at its index-th call
    (1, 2, ...) when every call before it drew too: SplitMix64 is a counter, so any draw of a
    stream is found from its seed and index alone, without a state that advances."""
    return int(unit(mixed(np.uint64(seed) + np.uint64(index) * _GOLDEN_GAMMA)) * n)


@njit(cache=True, nogil=True)
def uniform(state):
    """A float in [0, 1) with 53 random bits."""
    return unit(next_u64(state))


@njit(cache=True, nogil=True)
def unit(z):
    """A float in [0, 1) from the top 53 bits of the draw z."""
    return float(z >> _SHIFT_11) * _TO_UNIT


@njit(cache=True, nogil=True)
def softmax_draw(state, values, count, largest, temperature):
    """Index drawn from the softmax of values[:count] / temperature (`largest`: their maximum,
    subtracted so that no exponent overflows); values[:count] are overwritten by the weights."""
    total = 0.0
    for i in range(count):
        values[i] = math.exp((values[i] - largest) / temperature)
        total += values[i]
    draw = uniform(state) * total
    for i in range(count):
        draw -= values[i]
        if draw < 0.0:
            return i
    return count - 1


@njit(cache=True, nogil=True)
def randint(state, n):
    """An integer in [0, n), n >= 1 (bias below 2**-53 * n, irrelevant for game sizes)."""
    return int(uniform(state) * n)


@njit(cache=True, nogil=True)
def shuffle(state, values):
    """Fisher-Yates shuffle of a 1-D array in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = randint(state, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp
