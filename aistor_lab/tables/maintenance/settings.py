"""What maintenance does to a table: service defaults, overridden by the warehouse's configuration,
overridden by the table's own properties. The names are table properties: Iceberg's own where it
has one (``write.target-file-size-bytes``, ``history.expire.*``, which Spark's procedures honour
too), ``maintenance.*`` for the rest, in the spirit of S3 Tables' maintenance configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import BadRequestException

HOUR_MS = 3600 * 1000
DAY_MS = 24 * HOUR_MS


@dataclass(frozen=True)
class Setting:
    name: str  # the table property
    attribute: str  # the field of MaintenanceSettings
    default: int | bool
    help: str
    minimum: int = 0


SETTINGS = (
    Setting("maintenance.compaction.enabled", "compaction_enabled", True,
            "rewrite small data files into files near the target size"),
    Setting("write.target-file-size-bytes", "target_file_size_bytes", 512 * 1024 * 1024,
            "the size compaction aims at (Iceberg's own property)", minimum=1024),
    Setting("maintenance.compaction.min-input-files", "min_input_files", 5,
            "a partition is compacted once it has this many small files (or any delete file)", minimum=2),
    Setting("maintenance.snapshot-expiry.enabled", "snapshot_expiry_enabled", True,
            "remove old snapshots, then the files only they used"),
    Setting("history.expire.min-snapshots-to-keep", "min_snapshots_to_keep", 1,
            "snapshots of each branch always kept, however old (Iceberg's own property)", minimum=1),
    Setting("history.expire.max-snapshot-age-ms", "max_snapshot_age_ms", 5 * DAY_MS,
            "older snapshots are removed, beyond the ones kept (Iceberg's own property)"),
    Setting("history.expire.max-ref-age-ms", "max_ref_age_ms", 0,
            "tags and branches (never main) whose snapshot is older than this are removed; 0: never"),
    Setting("maintenance.unreferenced-files.enabled", "unreferenced_enabled", True,
            "remove files under the table's location that nothing references"),
    Setting("maintenance.unreferenced-files.grace-period-ms", "unreferenced_grace_ms", 3 * DAY_MS,
            "a file younger than this is never marked (an engine may still be committing it)"),
    Setting("maintenance.unreferenced-files.deletion-delay-ms", "unreferenced_delay_ms", 10 * DAY_MS,
            "a marked file is deleted this long after it was marked, if still unreferenced"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


@dataclass(frozen=True)
class MaintenanceSettings:
    compaction_enabled: bool
    target_file_size_bytes: int
    min_input_files: int
    snapshot_expiry_enabled: bool
    min_snapshots_to_keep: int
    max_snapshot_age_ms: int
    max_ref_age_ms: int
    unreferenced_enabled: bool
    unreferenced_grace_ms: int
    unreferenced_delay_ms: int

    @property
    def small_file_bytes(self) -> int:
        """Smaller data files are compacted: Iceberg's ``min-file-size-bytes`` default, 75% of the target."""
        return self.target_file_size_bytes * 3 // 4

    def to_properties(self) -> dict[str, str]:
        return {s.name: _text(getattr(self, s.attribute)) for s in SETTINGS}


def parse_value(name: str, value: object) -> int | bool:
    """A setting's value from its text (or JSON value); BadRequestException names what is wrong."""
    setting = BY_NAME.get(name)
    if setting is None:
        raise BadRequestException(f"Unknown maintenance setting {name!r}; known: {', '.join(BY_NAME)}")
    text = str(value).strip().lower()
    if isinstance(setting.default, bool):
        if text not in ("true", "false"):
            raise BadRequestException(f"{name} must be true or false, not {value!r}")
        return text == "true"
    try:
        number = int(text)
    except ValueError:
        raise BadRequestException(f"{name} must be a whole number, not {value!r}") from None
    if number < setting.minimum:
        raise BadRequestException(f"{name} must be at least {setting.minimum}, not {number}")
    return number


def check_settings(values: object) -> dict[str, str]:
    """A configuration as given (name -> value), checked: every name known, every value valid."""
    if not isinstance(values, dict):
        raise BadRequestException("Maintenance settings must be an object of setting name to value")
    return {name: _text(parse_value(name, value)) for name, value in values.items()}


def resolve(warehouse: dict[str, str], table_properties: dict[str, str]) -> MaintenanceSettings:
    """The settings of a table: its properties win over the warehouse's configuration, which wins over
    the defaults. A table property with an invalid value is ignored (the engine that set it is not
    ours to refuse), as Iceberg ignores what it cannot parse."""
    values: dict[str, int | bool] = {s.attribute: s.default for s in SETTINGS}
    for layer in (warehouse, table_properties):
        for setting in SETTINGS:
            if setting.name in layer:
                try:
                    values[setting.attribute] = parse_value(setting.name, layer[setting.name])
                except BadRequestException:
                    continue
    return MaintenanceSettings(**values)


def _text(value: int | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
