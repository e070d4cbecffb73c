"""Open and save the lessons the way JupyterLab does, and see whether a save changes them.

JupyterLab (with jupytext's server extension, as scripts/course.sh runs it) opens a lesson
through jupytext's contents manager, starts the kernel the lesson names, writes that kernel's
``kernelspec`` and ``language_info`` into the notebook's metadata (the tab turns "unsaved")
and autosave writes the notebook back through the same contents manager.  A lesson must come
back byte for byte, or a student who only looked at it finds ``git status`` dirty.  Two
things make that true: notebooks/jupytext.toml keeps jupytext's version out of the header,
and the lessons are written in the form jupytext writes (a blank line after a cell's
``:option:`` lines; the kernelspec as the ipykernel kernel ``python3`` describes itself).

    python tools/lesson_roundtrip.py          # check: name the pages a save would change
    python tools/lesson_roundtrip.py --write  # rewrite them in the form a save gives
"""
import argparse
import asyncio
import concurrent.futures
import copy
import difflib
import os
import pathlib
import shutil
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def pages(folder):
    """Every Markdown page JupyterLab opens as a notebook (lessons, demos, plain pages),
    as paths relative to ``folder``; hidden folders and linked ones (the assignments that
    scripts/course.sh links in) are left out."""
    found = []
    for parent, folders, files in os.walk(folder):          # does not follow links
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [(pathlib.Path(parent) / name).relative_to(folder).as_posix()
                  for name in files if name.endswith(".md")]
    return sorted(found)


def kernel_metadata(kernel_name):
    """``kernelspec`` and ``language_info`` as JupyterLab writes them once the kernel runs:
    the kernelspec in JupyterLab's key order (name, display_name, language), from the
    installed kernel's spec; language_info from ipykernel's reply."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec(kernel_name)
    kernelspec = {"name": kernel_name, "display_name": spec.display_name,
                  "language": spec.language}
    return kernelspec, copy.deepcopy(IPythonKernel.language_info)


async def open_and_save(manager, path):
    """One page through ``manager``: get it as a notebook, add the kernel's metadata as
    JupyterLab does when the notebook names a kernel, save it back."""
    model = await manager.get(path, content=True, type="notebook")
    notebook = model["content"]
    named = notebook.metadata.get("kernelspec", {}).get("name")
    if named:
        kernelspec, language_info = kernel_metadata(named)
        notebook.metadata["kernelspec"] = kernelspec
        notebook.metadata["language_info"] = language_info
    await manager.save({"type": "notebook", "format": "json", "content": notebook}, path)


def save_all(folder):
    """Open and save every page under ``folder`` in place, with jupytext's contents manager
    (the asynchronous one jupytext's server extension gives JupyterLab)."""
    from jupytext import AsyncTextFileContentsManager
    manager = AsyncTextFileContentsManager(root_dir=str(folder))

    async def run():
        for path in pages(folder):
            await open_and_save(manager, path)
    run_to_completion(run)


def run_to_completion(coroutine_function):
    """``asyncio.run``, also where this thread already runs an event loop (a notebook, or a
    test process whose browser tests started one): then on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_function())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine_function()).result()


def copy_pages(folder, target):
    """Copy the pages under ``folder`` (not the rest: the vendored scripts) to ``target``."""
    for path in pages(folder):
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(folder / path, target / path)
    return target


def changed_by_save(folder=NOTEBOOKS):
    """{page: unified diff} for the pages under ``folder`` that one open-and-save changes
    (done on a copy; ``folder`` stays as it is)."""
    with tempfile.TemporaryDirectory(prefix="minimx-roundtrip-") as scratch:
        copy_root = copy_pages(folder, pathlib.Path(scratch) / "notebooks")
        save_all(copy_root)
        changed = {}
        for path in pages(folder):
            before = (folder / path).read_bytes()
            after = (copy_root / path).read_bytes()
            if before != after:
                changed[path] = "".join(difflib.unified_diff(
                    before.decode().splitlines(True), after.decode().splitlines(True),
                    f"{path} (as written)", f"{path} (after open and save)"))
        return changed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite the pages a save would change, in the form it gives")
    parser.add_argument("folder", nargs="?", type=pathlib.Path, default=NOTEBOOKS)
    args = parser.parse_args(argv)
    changed = changed_by_save(args.folder)
    if args.write and changed:
        save_all(args.folder)
    for path, diff in changed.items():
        print(f"rewritten: {path}" if args.write else diff)
    if not changed:
        print(f"every page under {args.folder} comes back unchanged from an open and save")
    return 1 if changed and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
