"""minimx.archive.extract_tar: safe on every interpreter, with and without extractall(filter=).

Each test runs twice: with the interpreter's own ``tarfile.data_filter`` (Python >= 3.11.4)
and with it taken away, as on Debian 12's Python 3.11.2, where ``extractall(filter=...)``
does not exist.
"""
import io
import tarfile

import pytest

from minimx.archive import UnsafeArchiveError, extract_tar


@pytest.fixture(params=["data filter", "no data filter"])
def interpreter(request, monkeypatch):
    if request.param == "no data filter":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no data filter")
    return request.param


def make_tar(path, members):
    """members: (name, kind, payload) with kind 'file', 'dir', 'sym', 'hard' or 'fifo'."""
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(payload)
                info.mode = 0o4755          # set-uid: must not survive extraction
                tar.addfile(info, io.BytesIO(payload))
                continue
            info.mode = 0o755               # a folder its owner may enter (as real archives)
            info.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE,
                         "hard": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE}[kind]
            info.linkname = payload or ""
            tar.addfile(info)
    return path


def test_a_plain_archive_unpacks_with_folders_and_inner_links(tmp_path, interpreter):
    archive = make_tar(tmp_path / "ok.tar.gz", [
        ("top", "dir", None), ("top/a.bin", "file", b"abc"),
        ("top/sub/b.bin", "file", b"xyz"), ("top/link", "sym", "sub/b.bin")])
    extract_tar(archive, tmp_path / "out")
    assert (tmp_path / "out/top/a.bin").read_bytes() == b"abc"
    assert (tmp_path / "out/top/link").read_bytes() == b"xyz"
    assert (tmp_path / "out/top/a.bin").stat().st_mode & 0o7000 == 0


@pytest.mark.parametrize("member, message", [
    (("/tmp/evil.bin", "file", b"x"), "absolute path"),
    (("../evil.bin", "file", b"x"), "outside"),
    (("a/../../evil.bin", "file", b"x"), "outside"),
    (("up", "sym", "../.."), "link to '../..'"),
    (("passwd", "sym", "/etc/passwd"), "link to '/etc/passwd'"),
    (("hard", "hard", "../elsewhere"), "hard link"),
    (("pipe", "fifo", None), "device or pipe"),
])
def test_an_escaping_member_is_refused_before_anything_is_written(tmp_path, interpreter,
                                                                   member, message):
    archive = make_tar(tmp_path / "bad.tar.gz", [("first.bin", "file", b"1"), member])
    with pytest.raises(UnsafeArchiveError, match=message) as error:
        extract_tar(archive, tmp_path / "out")
    assert isinstance(error.value, ValueError) and "bad.tar.gz" in str(error.value)
    assert not (tmp_path / "out" / "first.bin").exists()
    assert not (tmp_path / "evil.bin").exists()
