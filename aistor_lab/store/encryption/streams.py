"""Object bytes on their way through EncryptingStore: encrypted as they are staged, decrypted as
they are read (only the packages a range touches)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

from ..base import ObjectHandle, Staging
from ..types import ObjectInfo
from .modes import AES256
from .packages import Encryptor, ObjectDecryptor, Stream
from .stored import StoredEncryption


class EncryptingStaging(Staging):
    """Bytes of a future object or part, encrypted on their way into the backend's staging.
    ``size`` and ``md5_hex`` are the plaintext's, which the S3 layer checks Content-MD5 against."""

    def __init__(self, inner: Staging, data_key: bytes, encryptor: Encryptor, stored: StoredEncryption, target: tuple):
        self._inner = inner
        self._data_key = data_key
        self._encryptor = encryptor
        self._md5 = hashlib.md5()
        self._sealed = False
        self.stored = stored
        self.target = target  # (bucket, key) or (bucket, key, upload id, part number)

    def write(self, data: bytes | memoryview) -> None:
        self._md5.update(data)
        ciphertext = self._encryptor.update(data)
        if ciphertext:
            self._inner.write(ciphertext)

    @property
    def size(self) -> int:
        return self._encryptor.plain_size

    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def part_etag(self) -> str:
        """The ETag of a part: the plaintext's MD5 for SSE-S3, as in S3; for SSE-KMS and SSE-C a
        keyed digest of it, no MD5 of the plaintext. Either way the same bytes sent again give the
        same ETag, as clients retrying a part expect."""
        if self.stored.sealed.mode == AES256:
            return self.md5_hex()
        digest = hmac.new(self._data_key, b"part etag " + self._md5.digest(), hashlib.sha256)
        return digest.hexdigest()[:32]

    def sealed(self, target: tuple) -> Staging:
        """The backend's staging with the final package written, for the write ``target`` names."""
        if target != self.target:
            raise ValueError(f"bytes staged for {self.target} cannot be written to {target}")
        if not self._sealed:
            self._inner.write(self._encryptor.finish())
            self._sealed = True
        return self._inner

    def discard(self) -> None:
        self._inner.discard()


class DecryptingHandle(ObjectHandle):
    """The plaintext of an encrypted object, decrypting only the packages a range touches."""

    def __init__(self, inner: ObjectHandle, info: ObjectInfo, data_key: bytes, streams: list[Stream], package_size: int):
        self._inner = inner
        self.info = info
        self._data_key = data_key
        self._streams = streams
        self._package_size = package_size

    def iter_range(self, start: int = 0, end: int | None = None, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        decryptor = ObjectDecryptor(self._data_key, self._streams, start, end, self._package_size)
        for chunk in self._inner.iter_range(decryptor.cipher_start, decryptor.cipher_end, chunk_size):
            plaintext = decryptor.update(chunk)
            if plaintext:
                yield plaintext
        decryptor.finish()

    def close(self) -> None:
        self._inner.close()
