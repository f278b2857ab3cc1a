"""Encrypted packages at rest: every range of every size decrypts to the plaintext's slice, streams
written in pieces of any size are the same format, and no alteration, reordering, dropping or
truncation of packages (or parts) goes unnoticed."""

from __future__ import annotations

import itertools
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aistor_lab.store.encryption.packages import (
    OVERHEAD,
    PACKAGE_SIZE,
    Encryptor,
    ObjectDecryptor,
    Stream,
    StreamDecryptor,
    TamperedError,
    cipher_size,
    decrypt,
    part_context,
    plain_offsets,
    plain_size,
)

KEY = os.urandom(32)
CONTEXT = part_context(None)
MAX_SIZE = 300 * 1024
FULL = PACKAGE_SIZE + OVERHEAD

sizes = st.integers(0, MAX_SIZE) | st.sampled_from(
    [0, 1, PACKAGE_SIZE - 1, PACKAGE_SIZE, PACKAGE_SIZE + 1, 2 * PACKAGE_SIZE, 4 * PACKAGE_SIZE + 7]
)
seeds = st.integers(0, 2**32)


def plaintext(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given offsets (taken modulo its length)."""
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def encrypt(data: bytes, cuts: list[int] = (), context: bytes = CONTEXT, key: bytes = KEY) -> bytes:
    encryptor = Encryptor(key, context)
    out = [encryptor.update(piece) for piece in pieces(data, list(cuts))]
    return b"".join(out) + encryptor.finish()


def read_range(
    ciphertext: bytes, size: int, start: int, end: int, context: bytes = CONTEXT, split: int = 4096
) -> bytes:
    decryptor = StreamDecryptor(KEY, context, size, start, end)
    wanted = ciphertext[decryptor.cipher_start : decryptor.cipher_end]
    return b"".join(decrypt(decryptor, [wanted[i : i + split] for i in range(0, len(wanted), split)]))


def a_range(draw, size: int) -> tuple[int, int]:
    start = draw(st.integers(0, size))
    return start, draw(st.integers(start, size))


@settings(max_examples=60, deadline=None)
@given(size=sizes, seed=seeds, cuts=st.lists(st.integers(0, MAX_SIZE), max_size=8), data=st.data())
def test_every_range_decrypts_to_the_slice(size, seed, cuts, data):
    clear = plaintext(size, seed)
    ciphertext = encrypt(clear, cuts)
    assert len(ciphertext) == cipher_size(size)
    assert plain_size(len(ciphertext)) == size
    assert read_range(ciphertext, size, 0, size) == clear
    start, end = a_range(data.draw, size)
    decryptor = StreamDecryptor(KEY, CONTEXT, size, start, end)
    # Whole packages only, and no more of them than the range touches.
    assert decryptor.cipher_start % FULL == 0
    assert decryptor.cipher_end == len(ciphertext) or decryptor.cipher_end % FULL == 0
    assert decryptor.cipher_end - decryptor.cipher_start <= (end - start) + 2 * FULL
    split = data.draw(st.integers(1, 3 * FULL))
    assert read_range(ciphertext, size, start, end, split=split) == clear[start:end]


@settings(max_examples=30, deadline=None)
@given(
    size=st.integers(1, MAX_SIZE),
    seed=seeds,
    writes=st.lists(st.integers(1, 50_000), min_size=1, max_size=30),
)
def test_the_encryptor_streams_holding_at_most_one_package(size, seed, writes):
    clear = plaintext(size, seed)
    encryptor = Encryptor(KEY, CONTEXT)
    written, emitted = 0, 0
    for piece in pieces(clear, [sum(writes[: i + 1]) for i in range(len(writes))]):
        emitted += len(encryptor.update(piece))
        written += len(piece)
        # Every full package but one that may still be the final one is out.
        assert emitted == (max(written - 1, 0) // PACKAGE_SIZE) * FULL
    assert emitted + len(encryptor.finish()) == cipher_size(size)
    assert encryptor.plain_size == size


@settings(max_examples=200, deadline=None)
@given(size=st.integers(0, 10 * 2**30))
def test_sizes_map_both_ways(size):
    stored = cipher_size(size)
    assert plain_size(stored) == size
    assert stored > size


@pytest.mark.parametrize("impossible", [0, 1, OVERHEAD - 1, FULL + 1, FULL + OVERHEAD, 3 * FULL + OVERHEAD])
def test_sizes_no_stream_has_are_refused(impossible):
    with pytest.raises(ValueError):
        plain_size(impossible)


@settings(max_examples=60, deadline=None)
@given(size=sizes, seed=seeds, position=st.integers(0, 2**40), bit=st.integers(0, 7))
def test_flipping_any_bit_fails(size, seed, position, bit):
    ciphertext = bytearray(encrypt(plaintext(size, seed)))
    ciphertext[position % len(ciphertext)] ^= 1 << bit
    with pytest.raises(TamperedError):
        read_range(bytes(ciphertext), size, 0, size)


@settings(max_examples=40, deadline=None)
@given(packages=st.integers(2, 5), seed=seeds, pair=st.tuples(st.integers(0, 4), st.integers(0, 4)))
def test_swapping_packages_fails(packages, seed, pair):
    size = packages * PACKAGE_SIZE  # all full, so any two can trade places
    ciphertext = encrypt(plaintext(size, seed))
    chunks = [ciphertext[i : i + FULL] for i in range(0, len(ciphertext), FULL)]
    a, b = sorted(index % packages for index in pair)
    if a == b:
        b = (a + 1) % packages
    chunks[a], chunks[b] = chunks[b], chunks[a]
    with pytest.raises(TamperedError):
        read_range(b"".join(chunks), size, 0, size)


@settings(max_examples=40, deadline=None)
@given(size=st.integers(PACKAGE_SIZE + 1, MAX_SIZE), seed=seeds, which=st.integers(0, 10))
def test_dropping_or_truncating_packages_fails(size, seed, which):
    ciphertext = encrypt(plaintext(size, seed))
    chunks = [ciphertext[i : i + FULL] for i in range(0, len(ciphertext), FULL)]
    dropped = b"".join(chunks[: which % len(chunks)] + chunks[which % len(chunks) + 1 :])
    truncated = b"".join(chunks[: max(1, which % len(chunks))])
    for damaged in (dropped, truncated):
        # Read as the size it now has (the last package left does not say it is final)...
        with pytest.raises(TamperedError):
            read_range(damaged, plain_size(len(damaged)), 0, plain_size(len(damaged)))
        # ...or as the size it had (bytes are missing).
        decryptor = StreamDecryptor(KEY, CONTEXT, size)
        with pytest.raises(TamperedError):
            list(decrypt(decryptor, [damaged[decryptor.cipher_start : decryptor.cipher_end]]))


def test_another_context_or_key_fails():
    clear = plaintext(2 * PACKAGE_SIZE + 5, 1)
    ciphertext = encrypt(clear, context=part_context(1))
    assert read_range(ciphertext, len(clear), 0, len(clear), part_context(1)) == clear
    with pytest.raises(TamperedError):
        read_range(ciphertext, len(clear), 0, len(clear), part_context(2))
    with pytest.raises(TamperedError):
        list(decrypt(StreamDecryptor(os.urandom(32), part_context(1), len(clear)), [ciphertext]))


def test_more_ciphertext_than_the_range_fails():
    ciphertext = encrypt(plaintext(10, 1))
    with pytest.raises(TamperedError):
        StreamDecryptor(KEY, CONTEXT, 10).update(ciphertext + b"x")


def test_an_empty_stream_is_one_authenticated_package():
    ciphertext = encrypt(b"")
    assert len(ciphertext) == OVERHEAD
    assert read_range(ciphertext, 0, 0, 0) == b""
    with pytest.raises(TamperedError):
        read_range(encrypt(b"", context=b"other"), 0, 0, 0)


# -- multipart: parts laid end to end, each its own stream ------------------------------------

part_sizes = st.lists(st.integers(0, 3 * PACKAGE_SIZE + 100), min_size=1, max_size=5)


def multipart(sizes_: list[int], seed: int) -> tuple[list[bytes], bytes, list[Stream]]:
    parts = [plaintext(size, seed + number) for number, size in enumerate(sizes_)]
    encrypted = [encrypt(part, context=part_context(number)) for number, part in enumerate(parts, 1)]
    streams = [Stream(part_context(number), len(c)) for number, c in enumerate(encrypted, 1)]
    return parts, b"".join(encrypted), streams


def read_object(ciphertext: bytes, streams: list[Stream], start: int, end: int, split: int = 5000) -> bytes:
    decryptor = ObjectDecryptor(KEY, streams, start, end)
    assert 0 <= decryptor.cipher_start <= decryptor.cipher_end <= len(ciphertext)
    wanted = ciphertext[decryptor.cipher_start : decryptor.cipher_end]
    return b"".join(decrypt(decryptor, [wanted[i : i + split] for i in range(0, len(wanted), split)]))


@settings(max_examples=60, deadline=None)
@given(sizes_=part_sizes, seed=seeds, data=st.data())
def test_multipart_ranges_decrypt_to_the_slice(sizes_, seed, data):
    parts, ciphertext, streams = multipart(sizes_, seed)
    clear = b"".join(parts)
    offsets = plain_offsets(streams)
    assert offsets[-1] == len(clear)
    for number in range(1, len(parts) + 1):  # GET ?partNumber=N
        assert clear[offsets[number - 1] : offsets[number]] == parts[number - 1]
    start, end = a_range(data.draw, len(clear))
    split = data.draw(st.integers(1, 2 * FULL))
    assert read_object(ciphertext, streams, start, end, split) == clear[start:end]


@settings(max_examples=30, deadline=None)
@given(sizes_=st.lists(st.integers(1, 2 * PACKAGE_SIZE), min_size=2, max_size=4), seed=seeds)
def test_multipart_parts_cannot_trade_places(sizes_, seed):
    _, ciphertext, streams = multipart(sizes_, seed)
    sizes_of = [s.cipher_size for s in streams]
    first = ciphertext[: sizes_of[0]]
    second = ciphertext[sizes_of[0] : sizes_of[0] + sizes_of[1]]
    swapped = second + first + ciphertext[sizes_of[0] + sizes_of[1] :]
    swapped_streams = [
        Stream(streams[0].context, sizes_of[1]),
        Stream(streams[1].context, sizes_of[0]),
        *streams[2:],
    ]
    with pytest.raises(TamperedError):
        read_object(swapped, swapped_streams, 0, sum(sizes_))


def test_a_range_outside_the_object_is_refused():
    _, _, streams = multipart([10, 20], 1)
    with pytest.raises(ValueError):
        ObjectDecryptor(KEY, streams, 5, 31)
    with pytest.raises(ValueError):
        StreamDecryptor(KEY, CONTEXT, 10, 4, 3)
