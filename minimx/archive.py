"""Unpacking a tar archive safely, on every Python minimx supports.

A tar archive can name a member ``/etc/passwd``, ``../../.bashrc``, or a link pointing out of
the folder it is unpacked into; ``TarFile.extractall`` would write there.  Python 3.12 (and the
security releases 3.8.17, 3.9.17, 3.10.12, 3.11.4) added ``extractall(filter="data")``, which
refuses such members; older interpreters, like Debian 12's 3.11.2, do not have it.  So minimx
checks every member itself first, on every interpreter, and passes ``filter="data"`` as a second
guard where it exists.  Used for CIFAR's archives (``gluon.data.vision``) and by the book's
``tools/vendor_widgets.py``.
"""
import os
import posixpath
import tarfile

__all__ = ["UnsafeArchiveError", "extract_tar"]


class UnsafeArchiveError(ValueError):
    """A member of an archive would be written outside the folder it is unpacked into."""


def _inside(root, path):
    return path == root or path.startswith(root + os.sep)


def _check_member(member, root, archive):
    """Raise UnsafeArchiveError unless ``member`` lands inside ``root`` (a real path)."""
    name = member.name
    where = f"{archive}: member {name!r}"
    if name.startswith(("/", "\\")) or posixpath.isabs(name) or os.path.isabs(name):
        raise UnsafeArchiveError(f"{where} has an absolute path")
    destination = os.path.realpath(os.path.join(root, name))
    if not _inside(root, destination):
        raise UnsafeArchiveError(f"{where} would be written outside {root}")
    if member.issym():
        # a symbolic link's target is read relative to the folder holding the link
        target = os.path.realpath(os.path.join(os.path.dirname(destination), member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, target):
            raise UnsafeArchiveError(f"{where} is a link to {member.linkname!r}, outside {root}")
    elif member.islnk():
        target = os.path.realpath(os.path.join(root, member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, target):
            raise UnsafeArchiveError(f"{where} is a hard link to {member.linkname!r}, "
                                     f"outside {root}")
    elif not (member.isfile() or member.isdir()):
        raise UnsafeArchiveError(f"{where} is a device or pipe, not a file, folder or link")


def extract_tar(archive, target):
    """Unpack every member of the tar file ``archive`` into the folder ``target``.

    Members with absolute paths, with ``..`` leading out of ``target``, links pointing out of
    it, and device files are refused with UnsafeArchiveError before anything is written.
    """
    os.makedirs(target, exist_ok=True)
    root = os.path.realpath(target)
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:
            _check_member(member, root, archive)
        if hasattr(tarfile, "data_filter"):       # Python >= 3.11.4 (3.10.12, 3.12)
            tar.extractall(root, members=members, filter="data")
        else:
            for member in members:                # no set-uid bits, as the data filter does
                member.mode &= 0o755
            tar.extractall(root, members=members)
