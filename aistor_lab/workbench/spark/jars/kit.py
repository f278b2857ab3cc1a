"""The offline jar kit: the jars Spark 3.5 (Scala 2.12) needs for Iceberg on S3 and for S3A,
assembled from PyPI packages for machines that cannot reach Maven.

What goes in, and why from there:

- ``iceberg-spark-runtime-3.5_2.12-1.10.2.jar`` from ``snowpark-connect-deps-iceberg``, unchanged.
  That copy lacks the runtime's own relocated Jackson and HttpClient5
  (``org.apache.iceberg.shaded.com.fasterxml`` / ``...shaded.org.apache.hc``).
- ``iceberg-aws-deps-relocated.jar``, made here from the SageMaker Feature Store SDK jar, which
  bundles Iceberg 1.9's relocated Jackson and HttpClient5 and the AWS SDK v2, all under the extra
  prefix ``smfs.shaded.``. Moving those back to their own names supplies both what the runtime
  lacks and what ``iceberg-aws-bundle`` would (S3FileIO, SigV4 signing of REST calls). Their own
  dependencies (commons-codec, commons-logging, HttpClient 4) stay under ``smfs.shaded.``, so
  they cannot clash with Spark's copies.
- ``hadoop-aws-3.3.1.jar`` and ``aws-java-sdk-bundle-1.11.901.jar`` from ``sagemaker-pyspark``'s
  source archive, unchanged, for Hadoop S3A (``s3a://`` paths).

Every input is pinned by SHA-256; the kit's manifest records the SHA-256 of every jar it holds,
and ``verify_kit`` checks them all.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from .relocate import Relocation, relocate_jar
from .sources import Archive, KitError, PinnedJar, file_sha256

log = logging.getLogger(__name__)

# Bump when what a kit holds changes: kits of another recipe no longer verify.
RECIPE = 1
MANIFEST = "aistor-spark-jars.json"
KIT_ENV = "AISTOR_SPARK_JARS"
SPARK_VERSION, SCALA_VERSION, ICEBERG_VERSION = "3.5", "2.12", "1.10.2"

SNOWPARK_ICEBERG = Archive(
    "snowpark-connect-deps-iceberg==1.0.3",
    "snowpark_connect_deps_iceberg-1.0.3-py3-none-any.whl",
    "4f280e3677ab8d3a89f16647fc392ab2a3d48369f0c48873fe07bc1e74e06ffc",
)
FEATURE_STORE = Archive(
    "sagemaker-feature-store-pyspark==2.2.2",
    "sagemaker_feature_store_pyspark-2.2.2-py3-none-any.whl",
    "5e5da72967812a0cc92399682da0d8fab3d0ec9e038eb82fe79b645c35fbf8e9",
)
SAGEMAKER_PYSPARK = Archive(
    "sagemaker-pyspark==1.4.5",
    "sagemaker_pyspark-1.4.5.tar.gz",
    "05ca2d5081d7138ce29a8fb0a9cba077f28c825288ed07aed46a82e63c0bf1fb",
)

ICEBERG_RUNTIME = PinnedJar(
    SNOWPARK_ICEBERG,
    "snowpark_connect_deps_iceberg/jars/iceberg-spark-runtime-3.5_2.12-1.10.2.jar",
    "5b30080c7bbbced0fb0900894b7ea0200b1bbb2e4c355ebe727baafaf49c16f6",
)
HADOOP_AWS = PinnedJar(
    SAGEMAKER_PYSPARK,
    "sagemaker_pyspark-1.4.5/deps/jars/hadoop-aws-3.3.1.jar",
    "6be50ad8a8b445d2802381b085b2a3ede5c29d353450a6a21f16b2fefa962b6e",
)
AWS_SDK_V1_BUNDLE = PinnedJar(
    SAGEMAKER_PYSPARK,
    "sagemaker_pyspark-1.4.5/deps/jars/aws-java-sdk-bundle-1.11.901.jar",
    "b87175b32a16544cc1b37cf40390eb375833e62bed67f8ce6cde4b7ad6429ead",
)
FEATURE_STORE_SDK = PinnedJar(
    FEATURE_STORE,
    "feature_store_pyspark/jars/sagemaker-feature-store-spark-sdk-3.5.jar",
    "a8728c2fafd3d6857e14bcac43a047e2cf5c3f192cc10b450c1c2c5aab9e498a",
)

COPIED_JARS = (ICEBERG_RUNTIME, HADOOP_AWS, AWS_SDK_V1_BUNDLE)
RELOCATED_JAR = "iceberg-aws-deps-relocated.jar"
RELOCATIONS = (
    Relocation("smfs/shaded/software/amazon/awssdk/", "software/amazon/awssdk/"),
    Relocation("smfs/shaded/org/apache/iceberg/shaded/com/fasterxml/", "org/apache/iceberg/shaded/com/fasterxml/"),
    Relocation("smfs/shaded/org/apache/iceberg/shaded/org/apache/hc/", "org/apache/iceberg/shaded/org/apache/hc/"),
)
# What the AWS SDK needs besides itself, taken as it is.
KEPT_PREFIXES = (
    "smfs/shaded/org/apache/commons/",
    "smfs/shaded/org/apache/hc/",
    "org/reactivestreams/",
    "software/amazon/eventstream/",
)
# SDK clients Iceberg never calls (a third of the SDK's classes).
DROPPED_PREFIXES = (
    "smfs/shaded/software/amazon/awssdk/services/sagemaker/",
    "smfs/shaded/software/amazon/awssdk/services/sagemakerfeaturestoreruntime/",
)


def cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aistor-lab"


def default_kit_dir() -> Path:
    """``$AISTOR_SPARK_JARS``, else ``~/.cache/aistor-lab/spark-jars``."""
    return Path(os.environ.get(KIT_ENV) or cache_home() / "spark-jars")


def build_kit(kit_dir: Path, downloads: Path | None = None) -> list[Path]:
    """Build (or rebuild) the kit in ``kit_dir`` and return its jars, verified. Archives are
    downloaded into ``downloads`` (default ``~/.cache/aistor-lab/downloads``), or reused from there."""
    started = time.monotonic()
    kit_dir = Path(kit_dir)
    downloads = Path(downloads) if downloads else cache_home() / "downloads"
    kit_dir.mkdir(parents=True, exist_ok=True)
    (kit_dir / MANIFEST).unlink(missing_ok=True)  # a kit is only valid once its manifest is written
    archives = {}
    for archive in (SNOWPARK_ICEBERG, FEATURE_STORE, SAGEMAKER_PYSPARK):
        log.info("fetching %s", archive.requirement)
        archives[archive] = archive.fetch(downloads)
    sources = {}
    for jar in COPIED_JARS:
        log.info("extracting %s", jar.name)
        jar.extract(archives[jar.archive], kit_dir / jar.name)
        sources[jar.name] = jar.archive.requirement
    log.info("relocating the AWS SDK v2 and Iceberg's Jackson and HttpClient5 into %s", RELOCATED_JAR)
    with tempfile.TemporaryDirectory(dir=kit_dir) as tmp:
        sdk = Path(tmp) / FEATURE_STORE_SDK.name
        FEATURE_STORE_SDK.extract(archives[FEATURE_STORE], sdk)
        partial = Path(tmp) / RELOCATED_JAR
        relocate_jar(sdk, partial, RELOCATIONS, keep=KEPT_PREFIXES, drop=DROPPED_PREFIXES)
        partial.replace(kit_dir / RELOCATED_JAR)
    sources[RELOCATED_JAR] = f"{FEATURE_STORE.requirement} (relocated)"
    order = [ICEBERG_RUNTIME.name, RELOCATED_JAR, HADOOP_AWS.name, AWS_SDK_V1_BUNDLE.name]
    _write_manifest(kit_dir, [(name, sources[name]) for name in order])
    jars = verify_kit(kit_dir)
    log.info("built the Spark jar kit in %s in %.0f s", kit_dir, time.monotonic() - started)
    return jars


def verify_kit(kit_dir: Path) -> list[Path]:
    """The kit's jars, in classpath order, after checking each one's size and SHA-256 against the
    manifest and the pinned digests; raises KitError otherwise."""
    kit_dir = Path(kit_dir)
    try:
        manifest = json.loads((kit_dir / MANIFEST).read_text())
    except FileNotFoundError:
        raise KitError(f"no Spark jar kit in {kit_dir} (no {MANIFEST}); build one with "
                       f"'aistor-lab spark-jars build {kit_dir}'") from None
    except ValueError as exc:
        raise KitError(f"{kit_dir / MANIFEST} is not valid JSON: {exc}") from None
    if manifest.get("recipe") != RECIPE:
        raise KitError(f"the Spark jar kit in {kit_dir} was built by another version of aistor-lab; rebuild it")
    pinned = {jar.name: jar.sha256 for jar in COPIED_JARS}
    try:
        entries = [(e["name"], e["size"], e["sha256"]) for e in manifest["jars"]]
    except (KeyError, TypeError):
        raise KitError(f"{kit_dir / MANIFEST} is not a jar kit manifest") from None
    jars = []
    for name, size, sha256 in entries:
        path = kit_dir / name
        if not path.is_file():
            raise KitError(f"{path} is missing")
        if path.stat().st_size != size or file_sha256(path) != sha256:
            raise KitError(f"{path} does not match the SHA-256 in {MANIFEST}")
        if pinned.get(name, sha256) != sha256:
            raise KitError(f"{path} is not the pinned upstream jar")
        jars.append(path)
    return jars


def ensure_kit(kit_dir: Path | None = None) -> list[Path]:
    """The jars of a verified kit in ``kit_dir`` (default: ``default_kit_dir()``), building it first
    when it is absent, stale or damaged."""
    kit_dir = Path(kit_dir) if kit_dir else default_kit_dir()
    try:
        return verify_kit(kit_dir)
    except KitError as reason:
        log.info("building the Spark jar kit: %s", reason)
        return build_kit(kit_dir)


def find_kit() -> list[Path] | None:
    """The jars of the kit ``$AISTOR_SPARK_JARS`` names (which must verify), or of a kit in the default
    location if one is there; None when there is none."""
    kit_dir = default_kit_dir()
    if os.environ.get(KIT_ENV) or (kit_dir / MANIFEST).is_file():
        return verify_kit(kit_dir)
    return None


def _write_manifest(kit_dir: Path, jars: list[tuple[str, str]]) -> None:
    manifest = {
        "recipe": RECIPE,
        "spark": SPARK_VERSION,
        "scala": SCALA_VERSION,
        "iceberg": ICEBERG_VERSION,
        "jars": [
            {"name": name, "size": (kit_dir / name).stat().st_size, "sha256": file_sha256(kit_dir / name),
             "source": source}
            for name, source in jars
        ],
    }
    partial = kit_dir / (MANIFEST + ".partial")
    partial.write_text(json.dumps(manifest, indent=2) + "\n")
    partial.replace(kit_dir / MANIFEST)
