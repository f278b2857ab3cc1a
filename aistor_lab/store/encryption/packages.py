"""Object bytes at rest: independently authenticated packages of AES-256-GCM (after MinIO's DARE).

A stream's plaintext is cut into packages of ``package_size`` bytes (the last one shorter; an empty
stream is one empty package). Each package is stored as ``nonce (12) | ciphertext | tag (16)`` with a
fresh random nonce, so ciphertext sizes follow from plaintext sizes alone. The associated data of
package ``i`` binds the format version, ``i``, whether ``i`` is the stream's final package, and the
caller's context; packages therefore cannot be reordered, dropped, moved to another stream or part,
and a stream cannot be cut after any package undetected. A range is read by decrypting only the
packages it touches, so a ranged GET of a large object decrypts a few packages.

A multipart object is its parts laid end to end, each part its own stream (``part_context``):
``ObjectDecryptor`` maps a plaintext range of the whole object onto the parts' ciphertext.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import UnreadableEncryption

PACKAGE_SIZE = 64 * 1024
NONCE_SIZE = 12
TAG_SIZE = 16
OVERHEAD = NONCE_SIZE + TAG_SIZE
FORMAT_VERSION = 1
_HEADER = struct.Struct(">BBI")  # format version, final flag, sequence number


class TamperedError(UnreadableEncryption, ValueError):
    """Ciphertext that does not authenticate: altered, reordered, cut short, or another key's."""


def part_context(part_number: int | None) -> bytes:
    """The context a stream is encrypted under: the part number of a multipart upload's part, none
    for a single-part object. The object itself is bound by its own data key (keys.py)."""
    return b"object" if part_number is None else b"part %d" % part_number


def _packages(plain_size: int, package_size: int) -> int:
    return max(1, -(-plain_size // package_size))


def cipher_size(plain_size: int, package_size: int = PACKAGE_SIZE) -> int:
    """The stored size of a stream of ``plain_size`` bytes."""
    if plain_size < 0:
        raise ValueError("a size is never negative")
    return plain_size + _packages(plain_size, package_size) * OVERHEAD


def plain_size(cipher_size: int, package_size: int = PACKAGE_SIZE) -> int:
    """The plaintext size of a stored stream; ValueError for a size no stream has."""
    packages, rest = divmod(cipher_size, package_size + OVERHEAD)
    if rest:
        # A last package holds at least one byte, unless it is the only one (an empty stream).
        if rest < OVERHEAD or (rest == OVERHEAD and packages):
            raise ValueError(f"{cipher_size} bytes is not the size of an encrypted stream")
        packages += 1
    elif not packages:
        raise ValueError("an encrypted stream is never empty")
    return cipher_size - packages * OVERHEAD


def _associated_data(sequence: int, final: bool, context: bytes) -> bytes:
    return _HEADER.pack(FORMAT_VERSION, final, sequence) + context


class Encryptor:
    """Encrypts one stream written in pieces of any size; holds at most one package in memory.

    ``update`` returns the ciphertext of the packages completed so far (often empty), ``finish``
    the final package. A full package is only sealed once more bytes follow, since whether it is
    final is not known before."""

    def __init__(self, key: bytes, context: bytes, package_size: int = PACKAGE_SIZE):
        self._aead = AESGCM(key)
        self._context = context
        self._package_size = package_size
        self._pending = bytearray()
        self._sequence = 0
        self._finished = False
        self.plain_size = 0

    def update(self, data: bytes | memoryview) -> bytes:
        if self._finished:
            raise ValueError("the stream is finished")
        self.plain_size += len(data)
        self._pending += data
        size = self._package_size
        sealed = []
        offset = 0
        with memoryview(self._pending) as pending:
            while len(self._pending) - offset > size:
                sealed.append(self._seal(pending[offset : offset + size], final=False))
                offset += size
        del self._pending[:offset]
        return b"".join(sealed)

    def finish(self) -> bytes:
        if self._finished:
            raise ValueError("the stream is finished")
        self._finished = True
        last = self._seal(bytes(self._pending), final=True)
        self._pending.clear()
        return last

    def _seal(self, plaintext: bytes | memoryview, final: bool) -> bytes:
        nonce = os.urandom(NONCE_SIZE)
        associated = _associated_data(self._sequence, final, self._context)
        self._sequence += 1
        return nonce + self._aead.encrypt(nonce, bytes(plaintext), associated)


class StreamDecryptor:
    """Plaintext ``[start, end)`` of one stream of ``plain_size`` bytes.

    Read the ciphertext ``[cipher_start, cipher_end)`` (whole packages only) and pass it to
    ``update`` in pieces of any size; each call returns the requested plaintext of the packages
    completed so far, and ``finish`` checks that nothing is missing. Raises TamperedError."""

    def __init__(
        self,
        key: bytes,
        context: bytes,
        plain_size: int,
        start: int = 0,
        end: int | None = None,
        package_size: int = PACKAGE_SIZE,
    ):
        end = plain_size if end is None else end
        if not 0 <= start <= end <= plain_size:
            raise ValueError(f"range [{start}, {end}) is not within {plain_size} bytes")
        self._aead = AESGCM(key)
        self._context = context
        self._plain_size = plain_size
        self._package_size = package_size
        self._start, self._end = start, end
        self._last = _packages(plain_size, package_size) - 1
        if start == end and plain_size:
            first, stop = 0, 0  # nothing to read
        else:
            # An empty stream's one package is read, so that even its emptiness is authenticated.
            first, stop = start // package_size, max(1, -(-end // package_size))
        self._sequence, self._stop = first, stop
        self.cipher_start = first * (package_size + OVERHEAD)
        self.cipher_end = min(stop * (package_size + OVERHEAD), cipher_size(plain_size, package_size))
        self._pending = bytearray()

    @property
    def remaining(self) -> int:
        """Ciphertext bytes still expected."""
        if self._sequence == self._stop:
            return 0
        # Every package before the current one is a full one.
        return self.cipher_end - self._sequence * (self._package_size + OVERHEAD) - len(self._pending)

    def update(self, data: bytes | memoryview) -> bytes:
        if len(data) > self.remaining:
            raise TamperedError("more ciphertext than the range holds")
        self._pending += data
        out = []
        offset = 0
        while self._sequence < self._stop:
            length = self._package_length(self._sequence)
            if len(self._pending) - offset < length:
                break
            out.append(self._open(self._sequence, bytes(self._pending[offset : offset + length])))
            offset += length
            self._sequence += 1
        del self._pending[:offset]
        return b"".join(out)

    def finish(self) -> None:
        if self._sequence < self._stop:
            raise TamperedError("the encrypted stream ends early")

    def _package_length(self, sequence: int) -> int:
        if sequence < self._last:
            return self._package_size + OVERHEAD
        return self._plain_size - sequence * self._package_size + OVERHEAD

    def _open(self, sequence: int, package: bytes) -> bytes:
        associated = _associated_data(sequence, sequence == self._last, self._context)
        try:
            plaintext = self._aead.decrypt(package[:NONCE_SIZE], package[NONCE_SIZE:], associated)
        except InvalidTag:
            raise TamperedError(f"package {sequence} of the encrypted stream does not authenticate") from None
        offset = sequence * self._package_size
        return plaintext[max(0, self._start - offset) : max(0, self._end - offset)]


@dataclass(frozen=True)
class Stream:
    """One independently encrypted stream of an object: its context and stored size."""

    context: bytes
    cipher_size: int


def plain_offsets(streams: Sequence[Stream], package_size: int = PACKAGE_SIZE) -> list[int]:
    """Where each stream's plaintext starts in the object's, and (last) the object's plaintext size;
    GET ?partNumber=N of a multipart object reads ``[offsets[N-1], offsets[N])``."""
    offsets = [0]
    for stream in streams:
        offsets.append(offsets[-1] + plain_size(stream.cipher_size, package_size))
    return offsets


class ObjectDecryptor:
    """Plaintext ``[start, end)`` of an object made of streams laid end to end (a multipart object's
    parts in order; a single-part object is one stream). Like StreamDecryptor: read the object's
    ciphertext ``[cipher_start, cipher_end)`` and pass it to ``update``; ``finish`` at the end."""

    def __init__(
        self,
        key: bytes,
        streams: Sequence[Stream],
        start: int = 0,
        end: int | None = None,
        package_size: int = PACKAGE_SIZE,
    ):
        offsets = plain_offsets(streams, package_size)
        total = offsets[-1]
        end = total if end is None else end
        if not 0 <= start <= end <= total:
            raise ValueError(f"range [{start}, {end}) is not within {total} bytes")
        self._decryptors: list[StreamDecryptor] = []
        self.cipher_start = self.cipher_end = 0
        cipher_offset = 0
        for index, stream in enumerate(streams):
            low, high = offsets[index], offsets[index + 1]
            # An empty object's streams are each read (authenticated); else those the range touches.
            if (low < end and high > start) or total == 0:
                decryptor = StreamDecryptor(
                    key, stream.context, high - low, max(start, low) - low, min(end, high) - low, package_size
                )
                if not self._decryptors:
                    self.cipher_start = cipher_offset + decryptor.cipher_start
                self.cipher_end = cipher_offset + decryptor.cipher_end
                self._decryptors.append(decryptor)
            cipher_offset += stream.cipher_size
        self._current = 0

    def update(self, data: bytes | memoryview) -> bytes:
        out = []
        view = memoryview(data)
        while view:
            if self._current == len(self._decryptors):
                raise TamperedError("more ciphertext than the range holds")
            decryptor = self._decryptors[self._current]
            take = decryptor.remaining
            out.append(decryptor.update(view[:take]))
            view = view[take:]
            if not decryptor.remaining:
                decryptor.finish()
                self._current += 1
        return b"".join(out)

    def finish(self) -> None:
        for decryptor in self._decryptors[self._current :]:
            decryptor.finish()


def decrypt(decryptor: StreamDecryptor | ObjectDecryptor, ciphertext: Iterable[bytes]) -> Iterator[bytes]:
    """The plaintext of ``ciphertext`` (the decryptor's cipher range, in pieces), piece by piece."""
    for piece in ciphertext:
        plaintext = decryptor.update(piece)
        if plaintext:
            yield plaintext
    decryptor.finish()
