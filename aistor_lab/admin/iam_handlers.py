"""The admin API for users and policies, under ``/_aistor/admin/v1``. JSON in and out.

    GET    /users                          list users                admin:ListUsers
    POST   /users                          create {"accessKey", "secretKey", "policies": [...]}
                                                                     admin:CreateUser (and, with
                                                                     policies, the attach action)
    GET    /users/{ak}                     one user                  admin:GetUser
    DELETE /users/{ak}                     delete                    admin:DeleteUser
    PUT    /users/{ak}/status              {"status": "enabled"|"disabled"}
                                                                     admin:EnableUser / admin:DisableUser
    POST   /users/{ak}/policies/{name}     attach                    admin:AttachUserOrGroupPolicy
    DELETE /users/{ak}/policies/{name}     detach                    admin:AttachUserOrGroupPolicy
    GET    /policies                       list policies             admin:ListUserPolicies
    PUT    /policies/{name}                create/replace (body: the policy JSON)  admin:CreatePolicy
    GET    /policies/{name}                {"name", "builtin", "policy"}           admin:GetPolicy
    DELETE /policies/{name}                delete (refused while attached)         admin:DeletePolicy

Every request is SigV4-signed with service ``s3`` (as MinIO's admin API) and must be allowed the
action above (the root user always is). Errors are ``{"code", "message"}`` with the HTTP status.
Action names follow MinIO's.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

from tornado.ioloop import IOLoop

from ..auth import AuthError, StagedVerification
from ..common.json_input import JSONInputError, json_type, parse_object
from ..http.small_body import BodyRefused, SmallBodyHandler
from ..iam import ADMIN_RESOURCE, ENABLED, IAMError, InvalidArgument, MalformedPolicy

PREFIX = "/_aistor/admin/v1"

LIST_USERS = "admin:ListUsers"
CREATE_USER = "admin:CreateUser"
GET_USER = "admin:GetUser"
DELETE_USER = "admin:DeleteUser"
ENABLE_USER = "admin:EnableUser"
DISABLE_USER = "admin:DisableUser"
ATTACH_POLICY = "admin:AttachUserOrGroupPolicy"
LIST_POLICIES = "admin:ListUserPolicies"
CREATE_POLICY = "admin:CreatePolicy"
GET_POLICY = "admin:GetPolicy"
DELETE_POLICY = "admin:DeletePolicy"

# The actions a request needs, known once it is authenticated (some depend on the body).
Actions = Sequence[str] | Callable[[], Sequence[str]]
# The fields of a JSON body and their types (``list``: a list of strings); each may be absent or null.
Fields = dict[str, type | tuple[type, ...]]
_JSON_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "a list of strings"}


def _access_denied() -> IAMError:
    return IAMError("AccessDenied", "Access Denied.", 403)


class AdminHandler(SmallBodyHandler):
    """Authentication, authorization and JSON replies; subclasses only map a route onto IAM."""

    def initialize(self, services: Any) -> None:
        self.services = services
        self._verification: StagedVerification | None = None
        self._payload: bytes | None = None
        self._json: dict | None = None  # the decoded body (json_object)

    def check_xsrf_cookie(self) -> None:
        """Requests are signed, not cookie-authenticated: XSRF does not apply."""

    async def serve(self, actions: Actions, call: Callable[[], Any], status: int = 200,
                    body: Fields | None = None) -> None:
        """Authenticate, check the JSON body has the ``body`` fields (when given), authorize, run ``call``
        (it may block on the store) in a thread, reply."""
        try:
            result = await self._in_pool(self._authorized_call, actions, call, body)
        except (AuthError, IAMError) as exc:
            self.reply_error(exc.status, exc.code, exc.message)
            return
        self.set_status(status)
        if status != 204:
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps(result))

    def _authorized_call(self, actions: Actions, call: Callable[[], Any], body: Fields | None) -> Any:
        access_key = self._authenticate()
        if body is not None:  # a malformed body is refused before anything is authorized or done
            self.json_object(body)
        needed = actions() if callable(actions) else actions
        iam = self.services.iam
        if not all(iam.is_allowed(access_key, action, ADMIN_RESOURCE) for action in needed):
            raise _access_denied()
        return call()

    def _authenticate(self) -> str:
        """The caller, verified with its body before any handler method runs (admit, accept_body)."""
        assert self._verification is not None and self._payload is not None
        return self._verification.access_key

    async def admit(self) -> None:
        """The signature's headers, before the body is read (http/small_body.py)."""
        request = self.request
        try:
            self._verification = await self._in_pool(
                StagedVerification, request.method, request.path, request.query, request.headers,
                self.services.iam.secret_for, service="s3",
                max_skew=self.services.settings.max_clock_skew_seconds, has_body=self.has_body)
        except AuthError as exc:
            self.refuse(functools.partial(self.reply_error, exc.status, exc.code, exc.message))
            return
        if self._verification.pending:
            self.hold_unverified()

    async def accept_body(self, body: bytes) -> None:
        assert self._verification is not None
        try:
            self._payload = await self._in_pool(self._verification.finish, body)
        except AuthError as exc:
            self.refuse(functools.partial(self.reply_error, exc.status, exc.code, exc.message))

    def send_body_refusal(self, refusal: BodyRefused) -> None:
        self.reply_error(refusal.status, refusal.code, refusal.message)

    async def _in_pool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` (it may read the store) on the server's thread pool when it has one, else on the
        default pool."""
        executor = getattr(self.services, "executor", None)
        return await IOLoop.current().run_in_executor(executor, functools.partial(fn, *args, **kwargs))

    def payload(self) -> bytes:
        """The verified request body (only after authentication)."""
        assert self._payload is not None
        return self._payload

    def json_object(self, fields: Fields | None = None) -> dict:
        """The verified body as a JSON object (an empty body is ``{}``), decoded once; ``fields`` are
        checked to be absent, null or of their type."""
        if self._json is None:
            try:
                self._json = parse_object(self.payload(), allow_empty=True)
            except JSONInputError as exc:
                raise self.body_error(exc.message) from None
        for name, kind in (fields or {}).items():
            value = self._json.get(name)
            if value is None:
                continue
            wrong = not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool)
            if wrong or (kind is list and not all(isinstance(item, str) for item in value)):
                kinds = kind if isinstance(kind, tuple) else (kind,)
                expected = " or ".join(_JSON_NAMES[k] for k in kinds)
                raise self.body_error(f"{name} must be {expected}, not {json_type(value)}")
        return self._json

    def body_error(self, message: str) -> IAMError:
        """What a body that is not JSON of the expected shape raises."""
        return InvalidArgument(message)

    def reply_error(self, status: int, code: str, message: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"code": code, "message": message}))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors tornado raises itself (unsupported method, ...) in the same JSON shape."""
        self.reply_error(status_code, "MethodNotAllowed" if status_code == 405 else "InternalError",
                         self._reason)


class UsersHandler(AdminHandler):
    async def get(self) -> None:
        await self.serve([LIST_USERS], self.services.iam.list_users)

    async def post(self) -> None:
        def actions() -> list[str]:
            # Creating a user with policies grants them: that needs the attach permission too.
            return [CREATE_USER, ATTACH_POLICY] if self.json_object().get("policies") else [CREATE_USER]

        def create() -> dict:
            body = self.json_object()
            return self.services.iam.create_user(body.get("accessKey"), body.get("secretKey"),
                                                 body.get("policies") or [])

        await self.serve(actions, create, status=201,
                         body={"accessKey": str, "secretKey": str, "policies": list})


class UserHandler(AdminHandler):
    async def get(self, access_key: str) -> None:
        await self.serve([GET_USER], lambda: self.services.iam.get_user(access_key))

    async def delete(self, access_key: str) -> None:
        await self.serve([DELETE_USER], lambda: self.services.iam.delete_user(access_key), status=204)


class UserStatusHandler(AdminHandler):
    async def put(self, access_key: str) -> None:
        def status() -> object:
            return self.json_object().get("status")

        await self.serve(
            lambda: [ENABLE_USER if status() == ENABLED else DISABLE_USER],
            lambda: self.services.iam.set_user_status(access_key, status()),
            body={"status": str},
        )


class UserPolicyHandler(AdminHandler):
    async def post(self, access_key: str, name: str) -> None:
        await self.serve([ATTACH_POLICY], lambda: self.services.iam.attach_policy(access_key, name))

    async def delete(self, access_key: str, name: str) -> None:
        await self.serve([ATTACH_POLICY], lambda: self.services.iam.detach_policy(access_key, name))


class PoliciesHandler(AdminHandler):
    async def get(self) -> None:
        await self.serve([LIST_POLICIES], self.services.iam.list_policies)


class PolicyHandler(AdminHandler):
    def body_error(self, message: str) -> IAMError:
        return MalformedPolicy(f"the policy is not valid JSON: {message}")

    async def put(self, name: str) -> None:
        # The document must be a JSON object before anything is authorized; put_policy checks the rest.
        await self.serve([CREATE_POLICY], lambda: self.services.iam.put_policy(name, self.payload()), body={})

    async def get(self, name: str) -> None:
        await self.serve([GET_POLICY], lambda: self.services.iam.get_policy(name))

    async def delete(self, name: str) -> None:
        await self.serve([DELETE_POLICY], lambda: self.services.iam.delete_policy(name), status=204)


class NotFoundHandler(AdminHandler):
    """Any other path under the admin prefix: a JSON 404 rather than tornado's HTML page."""

    async def admit(self) -> None:
        self.refuse(functools.partial(self.reply_error, 404, "NotFound", f"no admin API at {self.request.path}"))


def routes(services: Any) -> list:
    """URL specs for the lead's Application; ``services`` has ``.settings``, ``.store``, ``.iam``."""
    args = {"services": services}
    segment = "([^/]+)"
    return [
        (f"{PREFIX}/users", UsersHandler, args),
        (f"{PREFIX}/users/{segment}", UserHandler, args),
        (f"{PREFIX}/users/{segment}/status", UserStatusHandler, args),
        (f"{PREFIX}/users/{segment}/policies/{segment}", UserPolicyHandler, args),
        (f"{PREFIX}/policies", PoliciesHandler, args),
        (f"{PREFIX}/policies/{segment}", PolicyHandler, args),
        (f"{PREFIX}/.*", NotFoundHandler, args),
    ]
