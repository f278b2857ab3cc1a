"""The offline Spark jar kit: class-file relocation (checked by running the relocated classes on a real
JVM), pinned downloads, and the kit that `make setup` builds, verified by SHA-256."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from aistor_lab.workbench.spark.jars import KitError, ensure_kit, verify_kit
from aistor_lab.workbench.spark.jars.classfile import ClassFileError, rewrite_utf8_constants, utf8_constants
from aistor_lab.workbench.spark.jars.kit import MANIFEST, RELOCATED_JAR
from aistor_lab.workbench.spark.jars.relocate import Relocation, relocate_jar
from aistor_lab.workbench.spark.jars.sources import Archive

GREETER = """
package smfs.shaded.demo;
public class Greeter {
    public static final long BIG = 1234567890123L;
    public static final double RATIO = 2.5;
    public String greet(String who) { return "hello " + who; }
}
"""
UNUSED = "package smfs.shaded.demo; public class Unused {}"
# Refers to Greeter in every way a class file can: class constants, a method descriptor, a generic
# signature, a string given to Class.forName, and inlined long and double constants (two-slot entries).
MAIN = """
package app;
import java.util.List;
import smfs.shaded.demo.Greeter;
public class Main {
    static List<Greeter> all = List.of(new Greeter());
    static Greeter same(Greeter g) { return g; }
    public static void main(String[] args) throws Exception {
        Class<?> byName = Class.forName("smfs.shaded.demo.Greeter");
        long big = Long.parseLong(args[0]) + Greeter.BIG;
        double scaled = Double.parseDouble(args[0]) * Greeter.RATIO;
        String parameter = Main.class.getDeclaredMethod("same", Greeter.class).getParameterTypes()[0].getName();
        System.out.println(same(all.get(0)).greet(byName.getName()) + " " + big + " " + scaled + " " + parameter);
    }
}
"""


@pytest.fixture(scope="module")
def demo_jar(tmp_path_factory):
    """A jar compiled by javac: app.Main using smfs.shaded.demo.Greeter."""
    root = tmp_path_factory.mktemp("java")
    sources = {"smfs/shaded/demo/Greeter.java": GREETER, "smfs/shaded/demo/Unused.java": UNUSED,
               "app/Main.java": MAIN}
    for name, text in sources.items():
        (root / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / name).write_text(textwrap.dedent(text))
    classes = root / "classes"
    subprocess.run(["javac", "-d", str(classes), *[str(root / "src" / name) for name in sources]], check=True)
    jar = root / "demo.jar"
    with zipfile.ZipFile(jar, "w") as out:
        for path in sorted(classes.rglob("*.class")):
            out.write(path, path.relative_to(classes).as_posix())
    return jar


def run_main(jar) -> str:
    result = subprocess.run(["java", "-cp", str(jar), "app.Main", "1"], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_relocated_classes_run_under_their_new_names(demo_jar, tmp_path):
    assert run_main(demo_jar) == "hello smfs.shaded.demo.Greeter 1234567890124 2.5 smfs.shaded.demo.Greeter"
    out = tmp_path / "relocated.jar"
    written = relocate_jar(demo_jar, out, [Relocation("smfs/shaded/demo/", "demo/")], keep=["app/"],
                           drop=["smfs/shaded/demo/Unused"])
    with zipfile.ZipFile(out) as jar:
        names = jar.namelist()
        constants = [c for name in names if name.endswith(".class") for c in utf8_constants(jar.read(name))]
    assert written == 2
    assert sorted(names) == ["META-INF/MANIFEST.MF", "app/Main.class", "demo/Greeter.class"]
    assert not [c for c in constants if b"smfs" in c]
    assert b"(Ldemo/Greeter;)Ldemo/Greeter;" in constants  # the descriptor of same()
    assert b"demo.Greeter" in constants  # the argument of Class.forName
    assert run_main(out) == "hello demo.Greeter 1234567890124 2.5 demo.Greeter"


def test_relocation_output_depends_only_on_input(demo_jar, tmp_path):
    digests = set()
    for name in ("one.jar", "two.jar"):
        relocate_jar(demo_jar, tmp_path / name, [Relocation("smfs/shaded/demo/", "demo/")], keep=["app/"])
        digests.add(hashlib.sha256((tmp_path / name).read_bytes()).hexdigest())
    assert len(digests) == 1


def test_constant_pool_rewrite_refuses_what_is_not_a_class_file(demo_jar):
    with zipfile.ZipFile(demo_jar) as jar:
        data = jar.read("app/Main.class")
    assert rewrite_utf8_constants(data, lambda text: text) == data
    with pytest.raises(ClassFileError, match="magic"):
        rewrite_utf8_constants(b"PK\x03\x04" + data[4:], lambda text: text)
    with pytest.raises(ClassFileError, match="truncated"):
        rewrite_utf8_constants(data[:40], lambda text: text)
    with pytest.raises(ValueError):
        Relocation("smfs/shaded/demo", "demo/")


def test_downloads_are_checked_against_their_pinned_digest(tmp_path):
    wheel = tmp_path / "tiny_pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        out.writestr("tiny_pkg/__init__.py", "")
        out.writestr("tiny_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 1.0\n")
        out.writestr("tiny_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        out.writestr("tiny_pkg-1.0.dist-info/RECORD", "")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    downloads = tmp_path / "downloads"
    with pytest.raises(KitError, match="SHA-256"):
        Archive(str(wheel), wheel.name, "0" * 64).fetch(downloads)
    assert not (downloads / wheel.name).exists()
    fetched = Archive(str(wheel), wheel.name, digest).fetch(downloads)
    assert fetched == downloads / wheel.name and fetched.read_bytes() == wheel.read_bytes()


# -- the kit itself ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kit():
    return ensure_kit()


def test_kit_holds_the_jars_spark_needs(kit):
    assert [jar.name for jar in kit] == [
        "iceberg-spark-runtime-3.5_2.12-1.10.2.jar", RELOCATED_JAR, "hadoop-aws-3.3.1.jar",
        "aws-java-sdk-bundle-1.11.901.jar"]
    assert verify_kit(kit[0].parent) == kit
    with zipfile.ZipFile(kit[0]) as runtime:
        runtime_names = set(runtime.namelist())
    with zipfile.ZipFile(kit[1]) as relocated:
        names = set(relocated.namelist())
        constants = [c for name in names if name.endswith(".class") for c in utf8_constants(relocated.read(name))]
    # What the runtime from PyPI lacks (its NoClassDefFoundError) is now there, and the AWS SDK v2.
    missing = "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class"
    assert missing not in runtime_names and missing in names
    assert "org/apache/iceberg/shaded/org/apache/hc/client5/http/impl/classic/HttpClients.class" in names
    assert {"software/amazon/awssdk/services/s3/S3Client.class",
            "software/amazon/awssdk/auth/signer/Aws4Signer.class"} <= names
    assert not [name for name in names if name.startswith("smfs/shaded/software/")]
    assert not names & runtime_names - {"META-INF/MANIFEST.MF"}
    # No class still refers to a name that was moved.
    leftovers = [c for c in constants
                 if any(old in c for old in (b"smfs/shaded/software/", b"smfs.shaded.software.",
                                             b"smfs/shaded/org/apache/iceberg/", b"smfs.shaded.org.apache.iceberg."))]
    assert leftovers == []


def test_verify_finds_a_damaged_or_stale_kit(kit, tmp_path):
    small = next(jar for jar in kit if jar.name.startswith("hadoop-aws"))
    manifest = json.loads((small.parent / MANIFEST).read_text())
    manifest["jars"] = [entry for entry in manifest["jars"] if entry["name"] == small.name]
    shutil.copyfile(small, tmp_path / small.name)
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert verify_kit(tmp_path) == [tmp_path / small.name]

    data = bytearray((tmp_path / small.name).read_bytes())
    data[1000] ^= 0xFF
    (tmp_path / small.name).write_bytes(data)
    with pytest.raises(KitError, match="SHA-256"):
        verify_kit(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({**manifest, "recipe": 0}))
    with pytest.raises(KitError, match="rebuild"):
        verify_kit(tmp_path)
    (tmp_path / MANIFEST).unlink()
    with pytest.raises(KitError, match="spark-jars build"):
        verify_kit(tmp_path)


def test_cli_verify(kit, tmp_path):
    command = [sys.executable, "-m", "aistor_lab", "spark-jars", "verify"]
    good = subprocess.run([*command, str(kit[0].parent)], check=False, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert good.stdout.splitlines()[:len(kit)] == [str(jar) for jar in kit]
    bad = subprocess.run([*command, str(tmp_path)], check=False, capture_output=True, text=True)
    assert bad.returncode == 1 and "no Spark jar kit" in bad.stderr
