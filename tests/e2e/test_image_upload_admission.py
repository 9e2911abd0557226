"""Uploads the server cannot render soon are refused before their bytes are held, and a stream
that stops arriving is cut off at the call's deadline (docs/images.md#uploading-images): with one
render slot and one place in its queue, two uploads whose clients stop sending hold the two
places; a third is refused on its metadata (UNAVAILABLE OVERLOADED with grpc-retry-pushback-ms;
over REST 503 with Retry-After) without its file being read; the two stalled streams, whose
clients set no deadline, are cut off at the server's upload deadline (UPLOAD_TIMEOUT), and then an
upload is served again. Nothing of the stalled uploads is stored."""
import threading
import time

import grpc
import pytest

from conftest import local_stack
from objectstore import environment
from stack import wait_for
from test_image_uploads import (UPLOAD, chunk_messages, encoded, gallery, grpc_error, metadata_message, photo,
                                upload_grpc, upload_rest)

UPLOAD_TIMEOUT_S = 8


@pytest.fixture(scope="module")
def api():
    with environment(IMAGE_RENDER_LIMIT="1", IMAGE_RENDER_QUEUE="1", UPLOAD_TIMEOUT=f"{UPLOAD_TIMEOUT_S}s"):
        stack = local_stack("hotel_upload_admission")
    yield stack
    stack.stop()


class StalledUpload:
    """An UploadImage call (no deadline) that sends its metadata and a first chunk, then nothing."""

    def __init__(self, api, picture):
        self.started = time.monotonic()
        self.release = threading.Event()
        self.channel = grpc.insecure_channel(api.grpc_addr)
        call = self.channel.stream_unary(UPLOAD, request_serializer=None, response_deserializer=None)

        def messages():
            yield metadata_message(room_type_id="LIS1-DLX", alt_text="Stalled")
            yield chunk_messages(picture)[0]
            self.release.wait(60)

        self.future = call.future(messages())

    def refused(self):
        """The server refused it on arrival: a probe had taken the last place first (the stream's
        messages go out on a thread of their own, so a probe sent after it may overtake it)."""
        if self.future.done() and self.future.code() == grpc.StatusCode.UNAVAILABLE:
            self.channel.close()
            return True
        return False

    def outcome(self, timeout):
        try:
            self.future.result(timeout=timeout)
            return grpc.StatusCode.OK
        except grpc.RpcError as err:
            return err.code()
        finally:
            self.release.set()
            self.channel.close()


def test_uploads_beyond_the_render_pool_are_refused_before_their_bytes_and_stalled_ones_are_cut_off(api):
    picture = encoded(photo(400, 300, seed=71), "JPEG")
    before = gallery(api, "LIS1-DLX")
    stalled = [StalledUpload(api, picture) for _ in range(2)]

    def both_places_held():
        # Once both streams' metadata has arrived, a third upload is refused on its metadata, its
        # file unread (probed with a file that is no picture: were it read, it would be refused as
        # such). A stalled upload refused because a probe overtook it is started again.
        stalled[:] = [StalledUpload(api, picture) if upload.refused() else upload for upload in stalled]
        probe = upload_rest(api, "/room-types/LIS1-DLX/images", b"<html></html>", alt_text="Probe")
        return probe.reason() == "OVERLOADED"

    assert wait_for(both_places_held, 20)
    error = grpc_error(api, [metadata_message(room_type_id="LIS1-DLX", alt_text="Third")] + chunk_messages(picture))
    assert error.code() == grpc.StatusCode.UNAVAILABLE, error
    assert dict(error.trailing_metadata()).get("grpc-retry-pushback-ms"), error.trailing_metadata()
    resp = upload_rest(api, "/room-types/LIS1-DLX/images", picture, alt_text="Third")
    assert resp.status == 503 and resp.reason() == "OVERLOADED" and "Retry-After" in resp.headers, resp
    # The stalled streams are cut off at the server's deadline, though their clients set none.
    for upload in stalled:
        assert upload.outcome(timeout=UPLOAD_TIMEOUT_S + 30) in (grpc.StatusCode.CANCELLED,
                                                                  grpc.StatusCode.DEADLINE_EXCEEDED)
        assert time.monotonic() - upload.started < UPLOAD_TIMEOUT_S + 20
    assert gallery(api, "LIS1-DLX") == before
    image_id, created, _, _ = upload_grpc(api, [metadata_message(room_type_id="LIS1-DLX", alt_text="Served")]
                                          + chunk_messages(picture))
    assert created and [i["id"] for i in gallery(api, "LIS1-DLX")] == [i["id"] for i in before] + [image_id]
