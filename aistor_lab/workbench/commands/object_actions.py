"""What the object commands do (``aistor mb|rb|ls|cp|rm|cat|stat|tree``), in ``mc``'s words: each a
function of a ``Context`` and the parsed arguments. Their text is mc's lines; their JSON, one
document a result with mc's keys (``status``, ``type``, ``key``, ``size``, ``lastModified``, ``etag``...)."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client import AIStorError, ServiceError
from .actions import Context, UsageError
from .ilm_rules import tags_text
from .object_paths import Local, Remote, any_path, remote
from .results import Content, Fields, Records, Rows

TREE_BRANCH, TREE_LAST, TREE_PIPE, TREE_SPACE = "├─ ", "└─ ", "│  ", "   "


def human_size(size: int) -> str:
    """mc's sizes (go-humanize's IBytes, spaces dropped): ``0B``, ``5B``, ``1.5KiB``, ``20MiB``."""
    value, unit = float(size), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            break
        value /= 1024
    if unit == "B":
        return f"{size}B"
    return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"


def _when(moment: datetime.datetime | None) -> str:
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if moment else ""


def _iso(moment: datetime.datetime | None) -> str | None:
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _etag(value: str | None) -> str:
    return (value or "").strip('"')


# -- buckets --------------------------------------------------------------------------------------


def make_bucket(ctx: Context, args: argparse.Namespace) -> Records:
    lines, records = [], []
    for text in args.targets:
        target = remote(ctx, text).need_bucket()
        if target.key:
            raise UsageError(f"'{text}' is not a bucket: expected {'ALIAS/' if target.alias else ''}BUCKET")
        try:
            target.store.make_bucket(target.bucket, lock=args.with_lock)
        except ServiceError as exc:
            if not (args.ignore_existing and exc.code in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists")):
                raise
            lines.append(f"Bucket `{target.url()}` already exists.")
        else:
            lines.append(f"Bucket created successfully `{target.url()}`.")
        if args.with_versioning:
            target.store.set_versioning(target.bucket, "Enabled")
        records.append({"status": "success", "bucket": target.url(), "region": target.service.region})
    return Records(lines, records)


def _all_versions(target: Remote, prefix: str) -> Iterator[tuple[str, str | None]]:
    for entry in target.store.versions(target.bucket, prefix):
        yield entry["Key"], entry.get("VersionId")


def _raise_delete_errors(errors: list[dict], removed: int) -> None:
    if errors:
        first = errors[0]
        raise ServiceError(f"removed {removed}, could not remove {len(errors)}: {first.get('Key')}: "
                           f"{first.get('Message') or first.get('Code')}", code=first.get("Code", ""))


def remove_bucket(ctx: Context, args: argparse.Namespace) -> Records:
    lines, records = [], []
    for text in args.targets:
        target = remote(ctx, text).need_bucket()
        if target.key:
            raise UsageError(f"'{text}' is not a bucket: remove objects with aistor rm")
        if args.force:  # every version and delete marker first, as mc rb --force does
            answers = list(target.store.delete(target.bucket, _all_versions(target, "")))
            _raise_delete_errors([a for a in answers if "Code" in a], len(answers))
        target.store.remove_bucket(target.bucket)
        lines.append(f"Removed `{target.url()}` successfully.")
        records.append({"status": "success", "bucket": target.url()})
    return Records(lines, records)


# -- listings -------------------------------------------------------------------------------------


def _entry_record(target: Remote, entry: dict, name: str) -> dict[str, Any]:
    if "Prefix" in entry:
        return {"status": "success", "type": "folder", "lastModified": None, "size": 0, "key": name,
                "url": target.url(target.directory)}
    record = {"status": "success", "type": "file", "lastModified": _iso(entry["LastModified"]),
              "size": entry.get("Size", 0), "key": name, "etag": _etag(entry.get("ETag")),
              "url": target.url(target.directory), "storageClass": entry.get("StorageClass", "STANDARD")}
    if "VersionId" in entry:
        record.update(versionId=entry["VersionId"], isLatest=entry.get("IsLatest", False),
                      isDeleteMarker=entry.get("DeleteMarker", False))
    return record


def _entry_line(entry: dict, record: dict, ordinal: int | None) -> str:
    if record["type"] == "folder":
        return f"{'':25} {'0B':>7} {record['key']}"
    line = f"[{_when(entry['LastModified'])}] {human_size(record['size']):>7} {record['storageClass']}"
    if ordinal is not None:
        kind = "DEL" if record["isDeleteMarker"] else "PUT"
        line += f" {record['versionId']} v{ordinal} {kind}"
    return f"{line} {record['key']}"


def _list_buckets(target: Remote) -> Records:
    buckets = target.store.buckets()
    records = [{"status": "success", "type": "folder", "lastModified": _iso(b.get("CreationDate")), "size": 0,
                "key": b["Name"] + "/", "url": target.url()} for b in buckets]
    lines = [f"[{_when(b.get('CreationDate'))}] {'0B':>7} {b['Name']}/" for b in buckets]
    table = Rows(["bucket", "created"], [[b["Name"], _when(b.get("CreationDate"))] for b in buckets],
                 empty="(no buckets)")
    return Records(lines, records, table, empty="(no buckets)")


def _ordinals(entries: list[dict]) -> list[int | None]:
    """mc's version numbers: ``v1`` the oldest version of a key (listings give the newest first)."""
    left: dict[str, int] = {}
    for entry in entries:
        if "Key" in entry:
            left[entry["Key"]] = left.get(entry["Key"], 0) + 1
    ordinals: list[int | None] = []
    for entry in entries:
        if "Key" in entry:
            ordinals.append(left[entry["Key"]])
            left[entry["Key"]] -= 1
        else:
            ordinals.append(None)
    return ordinals


def list_objects(ctx: Context, args: argparse.Namespace) -> Records:
    target = remote(ctx, args.target)
    if not target.bucket:
        return _list_buckets(target)
    listing = target.store.versions if args.versions else target.store.objects
    entries = list(listing(target.bucket, target.key, recursive=args.recursive))
    ordinals = _ordinals(entries) if args.versions else [None] * len(entries)
    lines, records, rows = [], [], []
    for entry, ordinal in zip(entries, ordinals, strict=True):
        record = _entry_record(target, entry, (entry.get("Key") or entry["Prefix"])[len(target.directory):])
        if ordinal is not None:
            record["versionOrdinal"] = ordinal
        records.append(record)
        lines.append(_entry_line(entry, record, ordinal))
        rows.append([record["key"], record["type"], record["size"], record["lastModified"] or "",
                     record.get("versionId", "")])
    table = Rows(["key", "type", "size", "last modified", "version id"], rows, empty="(no objects)")
    return Records(lines, records, table)


def _tree_lines(tree: dict, indent: str = "") -> Iterator[str]:
    names = sorted(tree)
    for i, name in enumerate(names):
        last = i == len(names) - 1
        yield indent + (TREE_LAST if last else TREE_BRANCH) + name
        yield from _tree_lines(tree[name], indent + (TREE_SPACE if last else TREE_PIPE))


def tree(ctx: Context, args: argparse.Namespace) -> Records:
    """mc tree: the prefixes under a bucket or prefix as a tree (with ``--files``, the objects too)."""
    target = remote(ctx, args.target).need_bucket()
    root: dict[str, dict] = {}
    records = []
    for entry in target.store.objects(target.bucket, target.key):
        parts = entry["Key"][len(target.directory):].split("/")
        folders, name = parts[:-1], parts[-1]
        node, path = root, ""
        for folder in folders:
            path += folder + "/"
            if folder not in node:
                node[folder] = {}
                records.append({"status": "success", "type": "folder", "key": path})
            node = node[folder]
        if args.files and name:
            node[name] = {}
            records.append({"status": "success", "type": "file", "key": path + name, "size": entry.get("Size", 0)})
    heading = target.url(target.directory) or target.url()
    return Records([heading, *_tree_lines(root)], records)


# -- one object -----------------------------------------------------------------------------------


def cat(ctx: Context, args: argparse.Namespace) -> Content:
    target = remote(ctx, args.target).need_key()
    chunks = target.store.read(target.bucket, target.key, args.version_id)
    return Content(chunks, {"status": "success", "key": target.url(), "versionId": args.version_id})


def stat(ctx: Context, args: argparse.Namespace) -> Fields:
    target = remote(ctx, args.target).need_bucket()
    store = target.store
    if not target.key:
        versioning = store.versioning(target.bucket)
        tags = store.tags(target.bucket)
        data = {"status": "success", "name": target.url(), "type": "folder",
                "versioning": versioning or "Unversioned", "tags": tags, "ilmRules": len(store.lifecycle(target.bucket))}
        return Fields([("Name", data["name"]), ("Type", "folder"), ("Versioning", data["versioning"]),
                       ("Tags", tags_text(tags)), ("ILM rules", data["ilmRules"])], data)
    head = store.head(target.bucket, target.key, args.version_id)
    tags = store.tags(target.bucket, target.key, args.version_id)
    metadata = {"Content-Type": head.get("ContentType", ""),
                **{f"X-Amz-Meta-{k.title()}": v for k, v in head.get("Metadata", {}).items()}}
    data = {"status": "success", "name": target.url(), "lastModified": _iso(head.get("LastModified")),
            "size": head.get("ContentLength", 0), "etag": _etag(head.get("ETag")), "type": "file",
            "metadata": metadata, "versionID": head.get("VersionId"), "tags": tags,
            "storageClass": head.get("StorageClass", "STANDARD")}
    pairs = [("Name", data["name"]), ("Date", _when(head.get("LastModified"))),
             ("Size", f"{human_size(data['size'])} ({data['size']} bytes)"), ("ETag", data["etag"]), ("Type", "file")]
    pairs += [("VersionID", data["versionID"])] if data["versionID"] else []
    pairs += [("Metadata", "")] + [(f"  {k}", v) for k, v in metadata.items()]
    pairs += [("Tags", tags_text(tags))] if tags else []
    return Fields(pairs, data)


# -- cp -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Copy:
    source: Local | Remote
    target: Local | Remote
    size: int
    version_id: str | None = None

    def describe(self) -> tuple[str, str]:
        return tuple(p.path if isinstance(p, Local) else p.url() for p in (self.source, self.target))


def _under(target: Local | Remote, relative: str) -> Local | Remote:
    """``relative`` placed under a target that names a folder."""
    if isinstance(target, Local):
        return Local(os.path.join(target.path, relative))
    directory = target.key if not target.key or target.key.endswith("/") else target.key + "/"
    return Remote(target.service, target.alias, target.bucket, directory + relative)


def _names_folder(target: Local | Remote, many: bool) -> bool:
    if isinstance(target, Local):
        return many or target.path.endswith("/") or os.path.isdir(target.path)
    return many or not target.key or target.key.endswith("/")


def _local_sources(source: Local, recursive: bool) -> Iterator[tuple[str, str, int]]:
    """(file, its path relative to what the copy keeps, size): a folder keeps its own name unless
    written with a trailing ``/`` (then its contents), as mc copies."""
    path = Path(source.path)
    if path.is_file():
        yield str(path), path.name, path.stat().st_size
        return
    if not path.is_dir():
        raise UsageError(f"'{source.path}' does not exist")
    if not recursive:
        raise UsageError(f"'{source.path}' is a folder: copy it with --recursive")
    base = path if source.path.endswith("/") else path.parent
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        yield str(file), file.relative_to(base).as_posix(), file.stat().st_size


def _remote_sources(source: Remote, recursive: bool, version_id: str | None) -> Iterator[tuple[str, str, int]]:
    """(key, its name relative to the source's directory, size)."""
    source.need_bucket()
    if not recursive:
        source.need_key()
        head = source.store.head(source.bucket, source.key, version_id)
        yield source.key, source.key.rsplit("/", 1)[-1], head.get("ContentLength", 0)
        return
    for entry in source.store.objects(source.bucket, source.key):
        if not entry["Key"].endswith("/"):  # folder markers are not files
            yield entry["Key"], entry["Key"][len(source.directory):], entry.get("Size", 0)


def _plan(ctx: Context, args: argparse.Namespace) -> list[_Copy]:
    sources = [any_path(ctx, text) for text in args.sources]
    target = any_path(ctx, args.target)
    if isinstance(target, Remote):
        target.need_bucket()
    many = args.recursive or len(sources) > 1
    plan = []
    for source in sources:
        if isinstance(source, Local):
            if isinstance(target, Local):
                raise UsageError("copying between two local paths is not what aistor cp does: use cp")
            found = [(Local(path), relative, size) for path, relative, size in _local_sources(source, args.recursive)]
        else:
            found = [(Remote(source.service, source.alias, source.bucket, key), relative, size)
                     for key, relative, size in _remote_sources(source, args.recursive, args.version_id)]
        for item, relative, size in found:
            destination = _under(target, relative) if _names_folder(target, many) else target
            plan.append(_Copy(item, destination, size, args.version_id))
    return plan


def _same_service(a: Remote, b: Remote) -> bool:
    return (a.service.endpoint, a.service.access_key) == (b.service.endpoint, b.service.access_key)


def _transfer(job: _Copy, progress) -> None:
    source, target = job.source, job.target
    if isinstance(source, Local):
        target.store.upload(source.path, target.bucket, target.key, progress)
    elif isinstance(target, Local):
        Path(target.path).parent.mkdir(parents=True, exist_ok=True)
        source.store.download(source.bucket, source.key, target.path, progress, job.version_id)
    elif _same_service(source, target):
        target.store.copy(source.bucket, source.key, target.bucket, target.key, progress, job.version_id)
    else:  # two services: the bytes pass through here
        body = source.store.open(source.bucket, source.key, job.version_id)
        target.store.upload_stream(body, target.bucket, target.key, progress)


def _progress_bar(ctx: Context, total: int):
    from tqdm.auto import tqdm  # a widget in a notebook, text on a terminal

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, disable=not ctx.progress,
                leave=False, dynamic_ncols=True)


def copy(ctx: Context, args: argparse.Namespace) -> Records:
    plan = _plan(ctx, args)
    if not plan:
        raise AIStorError(f"nothing to copy under '{args.sources[0]}'")
    total = sum(job.size for job in plan)
    records, lines = [], []
    with _progress_bar(ctx, total) as bar:
        for job in plan:
            _transfer(job, bar.update)
            source, target = job.describe()
            lines.append(f"`{source}` -> `{target}`")
            records.append({"status": "success", "source": source, "target": target, "size": job.size,
                            "totalCount": len(plan), "totalSize": total})
    lines.append(f"Copied {len(plan)} object{'s' if len(plan) != 1 else ''}, {human_size(total)}.")
    return Records(lines, records)


# -- rm -------------------------------------------------------------------------------------------


def _removal_targets(target: Remote, args: argparse.Namespace) -> Iterator[tuple[str, str | None, int]]:
    """(key, version id or None, size) to delete."""
    store = target.store
    if args.version_id:
        yield target.key, args.version_id, 0
    elif args.versions:
        for entry in store.versions(target.bucket, target.key):
            if args.recursive or entry["Key"] == target.key:
                yield entry["Key"], entry.get("VersionId"), entry.get("Size", 0)
    elif args.recursive:
        for entry in store.objects(target.bucket, target.key):
            yield entry["Key"], None, entry.get("Size", 0)
    else:
        yield target.key, None, store.head(target.bucket, target.key).get("ContentLength", 0)


def remove(ctx: Context, args: argparse.Namespace) -> Records:
    if args.recursive and not args.force:
        raise UsageError("removing recursively needs --force")
    if args.version_id and (args.recursive or args.versions):
        raise UsageError("--version-id names one version: not with --recursive or --versions")
    lines, records, errors = [], [], []
    for text in args.targets:
        target = remote(ctx, text).need_bucket()
        if not args.recursive:
            target.need_key()
        sizes = {}
        wanted = []
        for key, version_id, size in _removal_targets(target, args):
            sizes[(key, version_id)] = size
            wanted.append((key, version_id))
        for answer in target.store.delete(target.bucket, wanted):
            if "Code" in answer:
                errors.append(answer)
                continue
            key, version_id = answer["Key"], answer.get("VersionId")
            record = {"status": "success", "key": target.url(key), "size": sizes.get((key, version_id), 0)}
            if version_id:
                record["versionID"] = version_id
            if answer.get("DeleteMarker"):
                record["isDeleteMarker"] = True
            records.append(record)
            lines.append(f"Removed `{target.url(key)}`" + (f" (versionId={version_id})" if version_id else "") + ".")
    _raise_delete_errors(errors, len(records))
    return Records(lines, records, empty="(nothing to remove)")
