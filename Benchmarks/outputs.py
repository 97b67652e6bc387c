"""Output directories of finished runs: set aside while anything is timed, deleted at the end.

On ext4 without a journal (this VM), creating files within minutes of deleting tens of
thousands makes the kernel skip every recently deleted inode when it allocates one
(`find_inode_bit` -> `recently_deleted`): whichever tool runs next is charged seconds of
system time that are not its own (up to 10 s on a 10,000-image cold run). So nothing is deleted
while the benchmark runs: `set_aside` renames a finished output directory into
`<work>/trash/` (one rename, no inode freed), and `empty_trash` deletes them all once every
regime is done.
"""
import itertools
import pathlib
import shutil

_names = itertools.count()


def set_aside(path):
    """Moves `path` (if it exists) into the trash directory beside its regime's work directory."""
    path = pathlib.Path(path)
    if not path.exists():
        return
    trash = path.parent.parent / "trash"
    trash.mkdir(parents=True, exist_ok=True)
    path.rename(trash / f"{next(_names)}-{path.parent.name}-{path.name}")


def empty_trash(base):
    """Deletes everything `set_aside` moved under `base` (run after the last timed command)."""
    shutil.rmtree(pathlib.Path(base) / "trash", ignore_errors=True)
