"""Is a PNG whole? A corrupt or truncated picture must cost the report that
one figure, never the whole build (pdflatex stops on it, a browser shows a
broken image).

check(path) reads the file's chunks, checks every CRC and inflates the
image data completely; it returns None for a sound picture and otherwise
the reason, in words, with the picture's size in pixels kept in SIZE."""
import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A figure is at most a few MB; anything larger is not one of ddlab's.
LIMIT = 64 << 20


def check(path):
    """None when path is a whole PNG, else why not."""
    try:
        with open(path, "rb") as f:
            data = f.read(LIMIT + 1)
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if len(data) > LIMIT:
        return f"larger than {LIMIT >> 20} MB"
    if not data.startswith(SIGNATURE):
        return "not a PNG (wrong signature)"
    pos, seen_header, idat = len(SIGNATURE), False, zlib.decompressobj()
    while True:
        if pos + 8 > len(data):
            return "truncated (no IEND chunk)"
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length + 4
        if end > len(data):
            return f"truncated inside its {kind.decode('latin-1')} chunk"
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[end - 4:end])[0]
        if zlib.crc32(kind + body) != crc:
            return f"corrupt ({kind.decode('latin-1')} chunk fails its CRC)"
        if not seen_header:
            if kind != b"IHDR" or length != 13:
                return "corrupt (no IHDR chunk first)"
            seen_header = True
        if kind == b"IDAT":
            try:
                idat.decompress(body)
            except zlib.error as e:
                return f"corrupt image data ({e})"
        if kind == b"IEND":
            return None if idat.eof else "corrupt (image data ends early)"
        pos = end


def size(path):
    """(width, height) of a PNG that check() accepted."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])
