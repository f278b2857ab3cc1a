"""Starting Spark's driver quietly: the cell shows a progress bar and one line when the session is ready,
not what the JVM prints (spark-submit's and Ivy's output, log4j's start-up warnings, which reach a
notebook cell because the kernel forwards its own stderr there).

The JVM is started as PySpark starts it (``launch_gateway``), with its output sent to a log file
(``jvm_log()``) instead of this process's stdout and stderr, and our ``log4j2.properties`` (warnings,
minus the ones every local session prints). ``verbose=True`` or ``AISTOR_SPARK_VERBOSE=1`` leaves the
JVM's output where PySpark sends it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

VERBOSE_ENV = "AISTOR_SPARK_VERBOSE"
LOG4J2_PROPERTIES = Path(__file__).with_name("log4j2.properties")
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
CONSOLE_PROGRESS = "spark.ui.showConsoleProgress"

_jvm_log: Path | None = None


class SparkStartError(RuntimeError):
    """The JVM exited before Spark's gateway answered; the message ends with its last lines of output."""


def wants_verbose(verbose: bool | None, environ: Mapping[str, str] = os.environ) -> bool:
    """``verbose`` when given, else whether ``AISTOR_SPARK_VERBOSE`` asks for the JVM's output."""
    if verbose is not None:
        return verbose
    return environ.get(VERBOSE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def quiet_conf(conf: Mapping[str, str]) -> dict[str, str]:
    """``conf`` with our log4j2 configuration for the driver and Spark's console progress bar (which
    would draw over the cell's output, or fill the log) off, unless ``conf`` sets them itself."""
    out = dict(conf)
    options = out.get(DRIVER_JAVA_OPTIONS, "")
    if "log4j2.configurationFile" not in options:
        # A file: URI, which has no spaces for Spark's splitting of the options to break.
        out[DRIVER_JAVA_OPTIONS] = f"-Dlog4j2.configurationFile={LOG4J2_PROPERTIES.as_uri()} {options}".strip()
    out.setdefault(CONSOLE_PROGRESS, "false")
    return out


def jvm_log() -> Path | None:
    """The file the JVM of this process's Spark driver writes its output to (None: it writes to ours,
    or was started elsewhere)."""
    return _jvm_log


def launched_by_spark_submit() -> bool:
    """Whether spark-submit (or the pyspark shell) started this process, its JVM waiting for us."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def jvm_running() -> bool:
    from pyspark import SparkContext

    return SparkContext._gateway is not None or launched_by_spark_submit()


def _last_words(path: Path, lines: int = 15) -> str:
    """The JVM's output from its first error on (spark-submit's usage text can follow it), else its end."""
    text = path.read_text(errors="replace").splitlines()
    first = next((i for i, line in enumerate(text) if line.startswith(("Error", "Exception")) or "Exception:" in line),
                 None)
    return "\n".join(text[first:first + 4] if first is not None else text[-lines:]).rstrip()


def launch_jvm(conf: Mapping[str, str], verbose: bool) -> None:
    """Start the driver's JVM with ``conf`` as PySpark would on its first SparkContext, its output in a
    fresh log file unless ``verbose``; the SparkContext made next runs in it. Call only when
    ``jvm_running()`` is false."""
    global _jvm_log
    from pyspark import SparkConf, SparkContext
    from pyspark.errors import PySparkRuntimeError
    from pyspark.java_gateway import launch_gateway

    spark_conf = SparkConf().setAll(list(conf.items()))
    if verbose:
        SparkContext._ensure_initialized(gateway=launch_gateway(spark_conf))
        return
    descriptor, name = tempfile.mkstemp(prefix="aistor-lab-spark-", suffix=".log")
    log = Path(name)
    with os.fdopen(descriptor, "wb") as output:  # the JVM keeps its own copy of the descriptor
        try:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": output, "stderr": subprocess.STDOUT})
        except PySparkRuntimeError as exc:
            raise SparkStartError(f"Spark's JVM did not start. Its output ({log}) says:\n{_last_words(log)}\n"
                                  f"Run again with verbose=True (or {VERBOSE_ENV}=1) to see all of it.") from exc
    SparkContext._ensure_initialized(gateway=gateway)
    _jvm_log = log
    # Kept while the JVM runs (to read after a failed job); a failed start keeps it for the user.
    atexit.register(log.unlink, missing_ok=True)
