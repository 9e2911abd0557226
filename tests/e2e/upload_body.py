"""A multipart/form-data body for image uploads (test_image_uploads.py, test_replica_reads.py)."""
import uuid


def multipart(file_bytes, filename="photo.jpg", content_type="image/jpeg", after=None, **fields):
    """A multipart body: the fields, the file, then the fields of the dict after."""
    boundary = uuid.uuid4().hex

    def text(items):
        return b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
                        for name, value in items)

    body = text(fields.items())
    body += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
             f"Content-Type: {content_type}\r\n\r\n").encode() + file_bytes + b"\r\n"
    body += text((after or {}).items()) + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"
