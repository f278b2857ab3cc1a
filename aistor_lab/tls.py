"""TLS for the service: a local certificate authority and server certificates for labs and tests, the
server's SSL context, and the files clients need to trust the CA.

A certs directory holds, as MinIO names them, ``public.crt`` and ``private.key`` (the server's
certificate and key), and when the certificate comes from a private CA, that CA as ``ca.crt``.
``create_certificates`` makes all three (and keeps the CA's key as ``ca.key`` so that certificates for
more host names come from the same CA). For clients, ``trust_files`` derives from ``ca.crt``:

- ``ca-bundle.pem``: the CAs this machine trusts (OpenSSL's default CA file, which holds any company CA
  too; else certifi's) plus ours, for ``REQUESTS_CA_BUNDLE``, ``AWS_CA_BUNDLE`` and ``SSL_CERT_FILE``:
  other sites keep working for the processes told to use it;
- ``truststore.p12``: the same as a PKCS12 Java truststore (password ``changeit``), for
  ``-Djavax.net.ssl.trustStore``; Java replaces its default truststore with it, so it needs the other
  CAs too (Maven downloads, cloud endpoints).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
import ssl
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import certifi
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.utils import CryptographyDeprecationWarning
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CERT_FILE = "public.crt"
KEY_FILE = "private.key"
CA_FILE = "ca.crt"
CA_KEY_FILE = "ca.key"
BUNDLE_FILE = "ca-bundle.pem"
TRUSTSTORE_FILE = "truststore.p12"
TRUSTSTORE_PASSWORD = "changeit"  # the JDK's own default, as in the documented keytool line
CA_ALIAS = "aistor-ca"
# Every certificate made here also names the loopback addresses: the lab's own clients use them.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
# Apple's platforms refuse server certificates that live longer than 825 days, even from private CAs.
SERVER_CERT_DAYS = 825
CA_DAYS = 3650


class CertificateError(Exception):
    """The certs directory cannot serve TLS (missing or unreadable files); the message says which."""


@dataclass(frozen=True)
class Trust:
    """What clients are pointed at to trust the service's private CA."""

    ca: Path
    ca_bundle: Path
    truststore: Path

    def environment(self, export_aws: bool = True) -> dict[str, str]:
        """Variables that make Python clients (requests, boto3, aiohttp, pyarrow's S3, PyIceberg,
        delta-sharing) and ``aistor_lab.workbench.spark`` trust the CA."""
        bundle = str(self.ca_bundle)
        env = {
            "AISTOR_CA_BUNDLE": bundle,
            "AISTOR_TRUSTSTORE": str(self.truststore),
            "REQUESTS_CA_BUNDLE": bundle,
            "SSL_CERT_FILE": bundle,
        }
        if export_aws:
            env["AWS_CA_BUNDLE"] = bundle
        return env

    def keytool_command(self) -> str:
        """The line that adds the CA to a JVM's default truststore (Trino, Spark, Dremio...)."""
        return (f'keytool -import -alias {CA_ALIAS} -file "{self.ca}" '
                f'-keystore "$JAVA_HOME/lib/security/cacerts" -storepass {TRUSTSTORE_PASSWORD}')

    def instructions(self) -> str:
        """How to trust the CA, for people: the Python variables, Spark's option, Java's keytool."""
        return "\n".join([
            "Python (requests, boto3, PyIceberg, delta-sharing, aistor_lab):",
            *(f"  export {name}={value}" for name, value in self.environment().items()),
            "Spark through aistor_lab.workbench.spark.session(): AISTOR_TRUSTSTORE above, or by hand:",
            f"  spark.driver.extraJavaOptions={java_trust_options(self.truststore)}",
            "Java engines (Trino, Dremio, ...): import the CA into the JVM's truststore, then restart them:",
            f"  {self.keytool_command()}",
        ])


def java_trust_options(truststore: Path | str) -> str:
    """JVM options that make JSSE (so the AWS SDKs, Iceberg's REST client and Hadoop S3A) trust only
    the certificates of ``truststore``."""
    return (f"-Djavax.net.ssl.trustStore={truststore} -Djavax.net.ssl.trustStoreType=PKCS12 "
            f"-Djavax.net.ssl.trustStorePassword={TRUSTSTORE_PASSWORD}")


@dataclass(frozen=True)
class ServerCertificate:
    certificate: Path
    key: Path
    hosts: tuple[str, ...]
    trust: Trust


def _host_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return x509.DNSName(host.lower())


def _key_usage(**granted: bool) -> x509.KeyUsage:
    """A KeyUsage extension with the ``granted`` bits set and every other one clear."""
    names = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
             "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    bits = dict.fromkeys(names, False)
    return x509.KeyUsage(**{**bits, **granted})


def _write_private(path: Path, data: bytes) -> None:
    """Write a private key readable by its owner only, from the first byte on."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(data)


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _new_ca(directory: Path, now: datetime.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "aistor-lab"),
                      x509.NameAttribute(NameOID.COMMON_NAME, f"aistor-lab local CA {now:%Y-%m-%d %H:%M}")])
    public = key.public_key()
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(key_cert_sign=True, crl_sign=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write_private(directory / CA_KEY_FILE, _pem_key(key))
    (directory / CA_FILE).write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return certificate, key


def _load_ca(directory: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    """The directory's CA when it has one (certificates made again then stay trusted), None if not."""
    ca_file, key_file = directory / CA_FILE, directory / CA_KEY_FILE
    if not ca_file.exists():
        return None
    if not key_file.exists():
        raise CertificateError(f"{ca_file} has no {CA_KEY_FILE} to sign with: "
                               "replace it with a new CA (--new-ca)")
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    return x509.load_pem_x509_certificate(ca_file.read_bytes()), key  # type: ignore[return-value]


def create_certificates(directory: Path, hosts: Sequence[str], *, new_ca: bool = False) -> ServerCertificate:
    """A server certificate and key for ``hosts`` (DNS names or IP addresses; the loopback names are
    always added), signed by the directory's CA, which is made first when there is none (or when
    ``new_ca``). Also writes the trust files (see the module)."""
    directory = Path(directory).resolve()  # the printed paths and exports must work from anywhere
    directory.mkdir(parents=True, exist_ok=True)
    names = tuple(dict.fromkeys(h.strip().lower() for h in [*hosts, *LOOPBACK_HOSTS] if h.strip()))
    now = datetime.datetime.now(datetime.UTC)
    loaded = None if new_ca else _load_ca(directory)
    ca_cert, ca_key = loaded or _new_ca(directory, now)
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(min(now + datetime.timedelta(days=SERVER_CERT_DAYS), ca_cert.not_valid_after_utc))
        .add_extension(x509.SubjectAlternativeName([_host_name(h) for h in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(digital_signature=True), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(directory / KEY_FILE, _pem_key(key))
    (directory / CERT_FILE).write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return ServerCertificate(directory / CERT_FILE, directory / KEY_FILE, names, write_trust_files(directory))


def _certificates(pem: bytes) -> list[x509.Certificate]:
    """The certificates of a PEM bundle, less the odd old root that cryptography refuses (or warns
    about, for a negative serial number): Java gets the rest."""
    certificates = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        for block in re.findall(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", pem, re.DOTALL):
            try:
                certificates.append(x509.load_pem_x509_certificate(block))
            except ValueError:
                continue
    return certificates


def _machine_cas() -> bytes:
    """The PEM file of the CAs this machine trusts: OpenSSL's default (not $SSL_CERT_FILE, which may
    be one of our bundles already), else certifi's when the system has none (macOS)."""
    system = Path(ssl.get_default_verify_paths().openssl_cafile)
    return (system if system.is_file() else Path(certifi.where())).read_bytes()


def write_trust_files(directory: Path) -> Trust:
    """(Re)write ``ca-bundle.pem`` and ``truststore.p12`` from ``ca.crt`` and the machine's CAs."""
    directory = Path(directory)
    ca_pem = (directory / CA_FILE).read_bytes()
    public_pem = _machine_cas()
    (directory / BUNDLE_FILE).write_bytes(public_pem.rstrip(b"\n") + b"\n\n# aistor-lab local CA\n" + ca_pem)
    certificates = _certificates(ca_pem + public_pem)
    aliases = [CA_ALIAS, *(f"ca-{number}" for number in range(1, len(certificates)))]
    entries = [pkcs12.PKCS12Certificate(certificate, alias.encode())
               for certificate, alias in zip(certificates, aliases, strict=True)]
    encryption = serialization.BestAvailableEncryption(TRUSTSTORE_PASSWORD.encode())
    (directory / TRUSTSTORE_FILE).write_bytes(pkcs12.serialize_java_truststore(entries, encryption))
    return Trust(directory / CA_FILE, directory / BUNDLE_FILE, directory / TRUSTSTORE_FILE)


def trust_files(directory: Path) -> Trust | None:
    """The trust files of a certs directory, made when missing or older than ``ca.crt``; None when the
    directory has no ``ca.crt`` (a publicly signed certificate needs nothing)."""
    directory = Path(directory)
    ca = directory / CA_FILE
    if not ca.exists():
        return None
    derived = [directory / BUNDLE_FILE, directory / TRUSTSTORE_FILE]
    if all(path.exists() and path.stat().st_mtime >= ca.stat().st_mtime for path in derived):
        return Trust(ca, *derived)
    return write_trust_files(directory)


def server_context(directory: Path) -> ssl.SSLContext:
    """The SSL context that serves ``public.crt`` with ``private.key`` (TLS 1.2 and later)."""
    certificate, key = Path(directory) / CERT_FILE, Path(directory) / KEY_FILE
    missing = [str(path) for path in (certificate, key) if not path.is_file()]
    if missing:
        raise CertificateError(f"no {' or '.join(missing)}: make them with `aistor-lab certs create --dir "
                               f"{directory}` or put the server's certificate and key there")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certificate, key)
    except (ssl.SSLError, ValueError) as exc:
        raise CertificateError(f"cannot use {certificate} with {key}: {exc}") from None
    return context
