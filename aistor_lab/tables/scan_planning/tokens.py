"""Plan-task tokens: which page of which plan, and how to plan it again. A page is answered from the
plan this server holds or, when it holds none (another server in front of the same store planned it,
or it was let go), planned again from the token's recipe: the table version (its metadata location)
and the request. Clients treat tokens as opaque; the recipe is compressed JSON."""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from dataclasses import dataclass

from .plans import NoSuchPlanTaskException

MAX_RECIPE_BYTES = 1024 * 1024  # a request is a small body: more than this is no token of ours


@dataclass(frozen=True)
class TaskToken:
    plan_id: str
    page: int
    metadata_location: str
    request: dict


def task_token(plan_id: str, page: int, recipe: str) -> str:
    return f"{plan_id}:{page}:{recipe}"


def encode_recipe(metadata_location: str, request: dict) -> str:
    text = json.dumps([metadata_location, request], sort_keys=True, separators=(",", ":"))
    return base64.urlsafe_b64encode(zlib.compress(text.encode())).decode().rstrip("=")


def parse_task_token(token: str) -> TaskToken:
    plan_id, _, rest = token.partition(":")
    page, _, recipe = rest.partition(":")
    try:
        if not plan_id or not page.isdigit():
            raise ValueError("not a plan task")
        packed = base64.urlsafe_b64decode(recipe + "=" * (-len(recipe) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(packed, MAX_RECIPE_BYTES)
        if inflater.unconsumed_tail:  # inflating further than any request: refused, not inflated
            raise ValueError("recipe too big")
        location, request = json.loads(text)
        if not isinstance(location, str) or not isinstance(request, dict):
            raise TypeError("not a recipe")
    except (ValueError, TypeError, binascii.Error, zlib.error):
        raise NoSuchPlanTaskException(f"No such plan task: {token[:100]}") from None
    return TaskToken(plan_id, int(page), location, request)
