"""The IAM service: the root user, other users with their keys and status, named policies, and the
authorization decision every request asks for.

State lives in the object store's system bucket, one JSON document each:
``iam/users/<access key>.json`` (sealed secret, status, attached policy names) and
``iam/policies/<name>.json`` (the policy document). So stateless servers sharing one store share
users. Lookups are cached in memory for ``cache_ttl`` seconds (local writes update the cache at
once), so the request path rarely reads the store and other processes see changes within the TTL.

Rules:
- The root user (from settings) may do everything; it is not a stored user and cannot be changed.
- Access keys: 3-128 characters of ``A-Z a-z 0-9 _ . @ + = -``. Secret keys: 8-128 printable
  ASCII characters without spaces. SigV4 verification needs the secrets themselves, so they are
  kept sealed under the master key (store/keyring.py), which is not in the store; they are never
  returned by the management methods. A user whose secret does not open is unknown (and logged).
- A named policy is deleted only when no user has it attached (else PolicyInUse). Attaching a
  policy that is attached, or detaching one that is not, changes nothing and is not an error.
- Built-in policies (builtin.py) cannot be replaced or deleted.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from ..store.base import ObjectStore
from ..store.cache import SHARED_STATE_SECONDS, Cache
from ..store.documents import DocumentStore
from ..store.errors import NoSuchKey, PreconditionFailed
from ..store.keyring import Keyring
from ..store.types import SYSTEM_BUCKET
from .bearer import BearerTokens
from .builtin import BUILTIN_POLICIES
from .errors import (
    IAMError,
    InvalidArgument,
    MalformedPolicy,
    NoSuchPolicy,
    NoSuchUser,
    PolicyInUse,
    UserAlreadyExists,
)
from .policy import ALLOW, DENY, Policy, RequestContext, decide, is_allowed
from .principals import ANONYMOUS
from .sealing import TokenSealer
from .session_credentials import Sessions

log = logging.getLogger(__name__)

ACCESS_KEY_PATTERN = re.compile(r"[A-Za-z0-9_.@+=-]{3,128}")
SECRET_KEY_PATTERN = re.compile(r"[!-~]{8,128}")
POLICY_NAME_PATTERN = re.compile(r"[A-Za-z0-9_.@+=,-]{1,128}")
ENABLED, DISABLED = "enabled", "disabled"
DEFAULT_CACHE_TTL = SHARED_STATE_SECONDS
# Bounds the memory a flood of unknown access keys could take (misses are cached too).
CACHED_ENTRIES = 10_000
_S3_ARN = "arn:aws:s3:::"
_UPDATE_ATTEMPTS = 8


@dataclass(frozen=True)
class User:
    access_key: str
    secret_key: str
    status: str = ENABLED
    policies: tuple[str, ...] = ()
    created: float = 0.0

    @classmethod
    def from_document(cls, document: dict) -> User:
        return cls(
            access_key=document["accessKey"],
            secret_key=document["secretKey"],
            status=document.get("status", ENABLED),
            policies=tuple(document.get("policies", ())),
            created=document.get("createdAt", 0.0),
        )

    def document(self) -> dict:
        return {**self.info(), "secretKey": self.secret_key}

    def info(self) -> dict:
        """What the management API shows: everything but the secret."""
        return {"accessKey": self.access_key, "status": self.status, "policies": list(self.policies),
                "createdAt": self.created}


class IAM:
    def __init__(self, store: ObjectStore, root_user: str, root_password: str, *,
                 kms_key: tuple[str, bytes] | None = None, cache_ttl: float = DEFAULT_CACHE_TTL,
                 clock: Callable[[], float] = time.monotonic):
        """``kms_key``: (name, key) to seal secrets with, else a key derived from the root credentials."""
        store.ensure_bucket(SYSTEM_BUCKET)
        self._is_system_bucket = store.is_system_bucket
        self._root_user = root_user
        self._root_password = root_password
        keyring = Keyring(root_user, root_password, kms_key)
        self._users = DocumentStore(store, "iam/users/", ACCESS_KEY_PATTERN, keyring=keyring,
                                    sealed=("secretKey",))
        self._policies = DocumentStore(store, "iam/policies/", POLICY_NAME_PATTERN)
        self._user_cache: Cache[User | None] = Cache(CACHED_ENTRIES, cache_ttl, clock)
        self._policy_cache: Cache[Policy | None] = Cache(CACHED_ENTRIES, cache_ttl, clock)
        sealer = TokenSealer(store, keyring)
        self.sessions = Sessions(sealer)  # temporary S3 credentials (vended by the catalog)
        self.bearer_tokens = BearerTokens(sealer)  # OAuth2 access tokens of the catalog
        # Seal what an older release kept in plain, so that no secret stays readable in the store.
        self._users.migrate()
        sealer.load_key()

    # -- the request path -----------------------------------------------------------------
    def is_root(self, access_key: str) -> bool:
        return access_key == self._root_user

    def secret_for(self, access_key: str) -> str | None:
        """The secret to verify a signature with; None for unknown or disabled users."""
        if self.is_root(access_key):
            return self._root_password
        user = self._cached_user(access_key)
        return user.secret_key if user is not None and user.status == ENABLED else None

    def is_allowed(self, access_key: str, action: str, resource: str,
                   context: RequestContext | None = None, *, session_policy: Policy | None = None,
                   other_names: Sequence[str] = (), bucket_policy: Policy | None = None,
                   granted: Callable[[], bool] | None = None) -> bool:
        """May ``access_key`` (``ANONYMOUS`` for an unsigned request) do ``action`` (``s3:GetObject``)
        on ``resource`` (an ARN, see arns.py)?

        ``context`` holds condition keys such as ``s3:prefix``; ``aws:username`` is set here.
        ``session_policy``: a temporary session's own limit (session_credentials.py), which must allow it too.
        ``other_names``: more ARNs of the same resource (a table's by uuid): see policy.is_allowed.
        ``bucket_policy``: the policy of the bucket the request acts on, whose statements naming the
        caller count beside the caller's own policies: an explicit Deny in either wins, else an Allow
        in either allows. ``granted``: asked last, whether an ACL grants it (s3/access.py).
        The root user is allowed everything outside the system bucket, whatever a bucket policy
        says (as MinIO's owner): no policy can lock the service's owner out.
        Nothing in the system bucket is ever allowed, root included: it holds the secrets.
        """
        if resource.startswith(_S3_ARN) and self._is_system_bucket(resource[len(_S3_ARN):].partition("/")[0]):
            return False
        names = (resource, *other_names) if other_names else resource
        context = {**(context or {}), "aws:username": access_key}
        if session_policy is not None and not is_allowed([session_policy], action, names, context):
            return False
        if self.is_root(access_key):
            return True
        by_bucket = decide([bucket_policy], action, names, context, access_key=access_key) if bucket_policy else None
        if by_bucket == DENY:
            return False
        if access_key == ANONYMOUS:
            by_identity = None
        else:
            user = self._cached_user(access_key)
            if user is None or user.status != ENABLED:
                return False
            policies = [p for p in map(self._cached_policy, user.policies) if p is not None]
            by_identity = decide(policies, action, names, context)
            if by_identity == DENY:
                return False
        return ALLOW in (by_identity, by_bucket) or (granted is not None and granted())

    def _cached_user(self, access_key: str) -> User | None:
        return self._user_cache.get_or_load(access_key, lambda: self._load_user(access_key))

    def _cached_policy(self, name: str) -> Policy | None:
        builtin = BUILTIN_POLICIES.get(name)
        if builtin is not None:
            return builtin
        return self._policy_cache.get_or_load(name, lambda: self._load_policy(name))

    def _load_user(self, access_key: str) -> User | None:
        found = self._users.read(access_key)
        return None if found is None else User.from_document(found[0])

    def _load_policy(self, name: str) -> Policy | None:
        found = self._policies.read(name)
        if found is None:
            return None
        try:
            return Policy(found[0], known_actions_only=False)
        except MalformedPolicy as exc:  # stored by an older or newer version with other rules
            log.warning("ignoring stored policy %r: %s", name, exc.message)
            return None

    # -- users ------------------------------------------------------------------------------
    def create_user(self, access_key: str, secret_key: str, policies: Iterable[str] = ()) -> dict:
        if not self._users.valid_name(access_key):
            raise InvalidArgument("the access key must be 3-128 characters of A-Z a-z 0-9 _ . @ + = -")
        if not isinstance(secret_key, str) or not SECRET_KEY_PATTERN.fullmatch(secret_key):
            raise InvalidArgument("the secret key must be 8-128 printable ASCII characters without spaces")
        if self.is_root(access_key):
            raise UserAlreadyExists(f"{access_key!r} is the root user")
        names = tuple(dict.fromkeys(policies))
        for name in names:
            self._require_policy(name)
        user = User(access_key, secret_key, ENABLED, names, time.time())
        if not self._users.create(access_key, user.document()):
            raise UserAlreadyExists(f"the user {access_key!r} exists already")
        self._user_cache.put(access_key, user)
        return user.info()

    def get_user(self, access_key: str) -> dict:
        return self._read_user(access_key)[0].info()

    def list_users(self) -> list[dict]:
        """Every stored user (not the root user), by access key."""
        users = (self._load_user(name) for name in sorted(self._users.names()))
        return [user.info() for user in users if user is not None]

    def delete_user(self, access_key: str) -> None:
        self._refuse_root(access_key)
        if not self._users.delete(access_key):
            raise NoSuchUser(f"the user {access_key!r} does not exist")
        self._user_cache.put(access_key, None)

    def set_user_status(self, access_key: str, status: str) -> dict:
        if status not in (ENABLED, DISABLED):
            raise InvalidArgument(f'status must be "{ENABLED}" or "{DISABLED}", got {status!r}')
        return self._update_user(access_key, lambda user: replace(user, status=status))

    def attach_policy(self, access_key: str, name: str) -> dict:
        self._require_policy(name)

        def attach(user: User) -> User:
            return user if name in user.policies else replace(user, policies=(*user.policies, name))

        return self._update_user(access_key, attach)

    def detach_policy(self, access_key: str, name: str) -> dict:
        return self._update_user(
            access_key, lambda user: replace(user, policies=tuple(p for p in user.policies if p != name))
        )

    def _refuse_root(self, access_key: str) -> None:
        if self.is_root(access_key):
            raise InvalidArgument("the root user is configured by the server settings and cannot be changed")

    def _read_user(self, access_key: str) -> tuple[User, str]:
        self._refuse_root(access_key)
        found = self._users.read(access_key)
        if found is None:
            raise NoSuchUser(f"the user {access_key!r} does not exist")
        user = User.from_document(found[0])
        self._user_cache.put(access_key, user)
        return user, found[1]

    def _update_user(self, access_key: str, change: Callable[[User], User]) -> dict:
        """Read, change, write back only if nobody wrote in between; retry if somebody did."""
        for _ in range(_UPDATE_ATTEMPTS):
            user, etag = self._read_user(access_key)
            changed = change(user)
            if changed != user:
                try:
                    self._users.replace(access_key, changed.document(), etag)
                except (PreconditionFailed, NoSuchKey):
                    continue
                self._user_cache.put(access_key, changed)
            return changed.info()
        raise IAMError("OperationAborted", f"the user {access_key!r} is being changed concurrently; "
                       "try again", 409)

    # -- named policies ---------------------------------------------------------------------
    def put_policy(self, name: str, document: str | bytes | dict) -> dict:
        """Create or replace a named policy; the document is validated first."""
        if not self._policies.valid_name(name):
            raise InvalidArgument("a policy name must be 1-128 characters of A-Z a-z 0-9 _ . @ + = , -")
        if name in BUILTIN_POLICIES:
            raise InvalidArgument(f"{name!r} is a built-in policy and cannot be replaced")
        policy = Policy.parse(document)
        self._policies.replace(name, policy.document)
        self._policy_cache.put(name, policy)
        return {"name": name, "builtin": False, "policy": policy.document}

    def get_policy(self, name: str) -> dict:
        builtin = BUILTIN_POLICIES.get(name)
        if builtin is not None:
            return {"name": name, "builtin": True, "policy": builtin.document}
        found = self._policies.read(name)
        if found is None:
            raise NoSuchPolicy(f"the policy {name!r} does not exist")
        return {"name": name, "builtin": False, "policy": found[0]}

    def list_policies(self) -> list[dict]:
        """Built-in and stored policy names, sorted."""
        entries = {name: True for name in BUILTIN_POLICIES}
        entries.update((name, False) for name in self._policies.names())
        return [{"name": name, "builtin": entries[name]} for name in sorted(entries)]

    def delete_policy(self, name: str) -> None:
        if name in BUILTIN_POLICIES:
            raise InvalidArgument(f"{name!r} is a built-in policy and cannot be deleted")
        self._require_policy(name)
        holders = [user["accessKey"] for user in self.list_users() if name in user["policies"]]
        if holders:
            raise PolicyInUse(f"the policy {name!r} is attached to {', '.join(holders)}; detach it first")
        self._policies.delete(name)
        self._policy_cache.put(name, None)

    def _require_policy(self, name: str) -> None:
        if name not in BUILTIN_POLICIES and self._policies.read(name) is None:
            raise NoSuchPolicy(f"the policy {name!r} does not exist")
