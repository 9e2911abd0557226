"""The S3 store's request signing (libcurl's CURLOPT_AWS_SIGV4) against a server that checks
signatures: MinIO (scripts/minio.sh, pinned, built from the Go module proxy). moto's server, which
the other image tests use, accepts any signature. An upload through the real gateway and server is
stored with a valid signature and read back from the bucket; with a wrong secret the store refuses
every request and the caller gets a clear, retryable 503 OBJECT_STORE_UNAVAILABLE naming no store,
not a 500, with nothing added to the gallery; the server's log says what the store answered."""
import io

import boto3
import botocore.exceptions
import pytest
from PIL import Image

from conftest import local_stack
from objectstore import environment, minio_server
from test_image_uploads import CONTENT_TYPES, PIL_FORMATS, files_of, upload_rest

BUCKET = "hotel-images"
PREFIX = "signed/"
ACCESS_KEY = "hotel-uploader"
SECRET_KEY = "a-secret-of-the-uploader"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with minio_server(str(tmp_path_factory.mktemp("minio")), ACCESS_KEY, SECRET_KEY) as endpoint:
        bucket = s3(endpoint, SECRET_KEY)
        bucket.create_bucket(Bucket=BUCKET)
        yield endpoint


def s3(endpoint, secret):
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=secret)


def stack_with_secret(store, name, secret):
    with environment(IMAGE_STORE="s3", IMAGE_S3_BUCKET=BUCKET, IMAGE_S3_PREFIX=PREFIX, IMAGE_S3_ENDPOINT=store,
                     AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=secret):
        return local_stack(name, server_args=("--cdn-base-url", f"{store}/{BUCKET}/{PREFIX[:-1]}"))


def store_errors(stack):
    """What the store answered the server, from its log."""
    with open(stack.server_log) as f:
        return [line for line in f if "object store request failed" in line]


def picture(seed):
    image = Image.new("RGB", (900, 600), (seed * 40 % 256, 120, 200))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def test_minio_checks_signatures(store):
    """The premise: MinIO refuses a request signed with another secret (moto's server does not)."""
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        s3(store, "not-the-secret").list_objects_v2(Bucket=BUCKET)
    assert refused.value.response["Error"]["Code"] == "SignatureDoesNotMatch", refused.value.response


def test_an_upload_is_stored_signed_and_read_back(store):
    stack = stack_with_secret(store, "hotel_signed_store", SECRET_KEY)
    try:
        resp = upload_rest(stack, "/room-types/BER1-STD/images", picture(1), alt_text="Signed", request_id="signed-1")
        assert resp.status == 201, (resp, store_errors(stack))
        bucket = s3(store, SECRET_KEY)
        files = list(files_of(resp.json))
        assert len(files) == 7, files
        for name, file in files:
            key = file["url"].split(f"/{BUCKET}/", 1)[1]
            assert key.startswith(PREFIX), key
            got = bucket.get_object(Bucket=BUCKET, Key=key)
            assert got["ContentType"] == CONTENT_TYPES[file["format"]], (name, file, got["ContentType"])
            assert got["CacheControl"] == "public, max-age=31536000, immutable", got["CacheControl"]
            with Image.open(io.BytesIO(got["Body"].read())) as image:
                assert image.format == PIL_FORMATS[file["format"]], (name, file)
                assert image.size == (file["width"], file["height"]), (name, file)
    finally:
        stack.stop()


def test_a_wrong_secret_is_a_clear_retryable_error_and_stores_nothing(store):
    stack = stack_with_secret(store, "hotel_wrong_secret", "not-the-secret")
    try:
        before = stack.get("/room-types/BER1-STD/images").json["data"]
        resp = upload_rest(stack, "/room-types/BER1-STD/images", picture(2), alt_text="Refused")
        assert resp.status == 503 and resp.reason() == "OBJECT_STORE_UNAVAILABLE", resp
        assert "Retry-After" in resp.headers, resp.headers
        assert store not in resp.text and BUCKET not in resp.text, "the error names no store"
        assert stack.get("/room-types/BER1-STD/images").json["data"] == before
        assert any("SignatureDoesNotMatch" in line for line in store_errors(stack)), store_errors(stack)
    finally:
        stack.stop()
