"""Local GCS (gcp-storage-emulator) and S3 (moto server mode) endpoints that speak the real wire protocols."""
import contextlib
import os
import socket

import pytest


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def environment(**values):
    """Set environment variables for the block, restoring the old values afterwards."""
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def gcs_emulator(bucket):
    """gs://bucket served by gcp-storage-emulator on a free port; Beam's GCS client reaches it anonymously."""
    emulator = pytest.importorskip("gcp_storage_emulator.server", reason="needs gcp-storage-emulator (pip install "
                                   "gcp-storage-emulator) to run a local GCS")
    pytest.importorskip("apache_beam.io.gcp.gcsio", reason="needs Beam's GCS support: pip install 'picforge[gcp]'")
    from apache_beam.internal.gcp import auth

    port = free_port()
    server = emulator.create_server("127.0.0.1", port, in_memory=True, default_bucket=bucket)
    server.start()
    # no credentials exist here: skip Beam's ~26 s of retried lookups by recording "none found" up front
    saved = auth._Credentials._credentials_init, auth._Credentials._credentials
    auth._Credentials._credentials_init, auth._Credentials._credentials = True, None
    try:
        with environment(STORAGE_EMULATOR_HOST=f"http://127.0.0.1:{port}"):
            yield f"gs://{bucket}"
    finally:
        auth._Credentials._credentials_init, auth._Credentials._credentials = saved
        server.stop()


@contextlib.contextmanager
def s3_server(bucket):
    """s3://bucket served by moto in server mode on a free port; yields the Beam flags that reach it."""
    moto_server = pytest.importorskip("moto.server", reason="needs moto's server mode: pip install 'moto[server]'")
    pytest.importorskip("apache_beam.io.aws.s3io", reason="needs Beam's S3 support: pip install 'picforge[aws]'")
    pytest.importorskip("flask", reason="needs moto's server mode: pip install 'moto[server]'")
    import boto3

    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        with environment(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
                         AWS_ENDPOINT_URL_S3=endpoint):
            boto3.client("s3").create_bucket(Bucket=bucket)
            yield f"s3://{bucket}", ["--s3_endpoint_url", endpoint, "--s3_access_key_id", "testing",
                                     "--s3_secret_access_key", "testing", "--s3_region_name", "us-east-1"]
    finally:
        server.stop()
