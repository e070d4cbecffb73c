"""Fixtures for the browser tests: Debian's chromium driven by Playwright, JupyterLab, the book.

Every test here is marked ``browser`` and is skipped, with the reason, when
chromium (``/usr/bin/chromium``, or ``$MINIMX_CHROMIUM``) or the ``playwright``
package is missing; Playwright never downloads a browser.  Servers listen on
free localhost ports and are stopped (their whole process group) at the end;
every wait has a timeout.  Screenshots go to ``_build/screenshots/`` (CI keeps
that folder as an artifact).
"""
import contextlib
import functools
import http.server
import importlib.util
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = os.environ.get("MINIMX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 30_000             # Playwright's default for every action and wait


def missing_browser():
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"chromium not found at {CHROMIUM} (apt-get install chromium)"
    return None


requires_browser = pytest.mark.skipif(missing_browser() is not None,
                                      reason=missing_browser() or "")


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def screenshot_dir(name):
    folder = SCREENSHOTS / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# -- the browser ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def browser():
    """A Playwright browser context on Debian's chromium with a fresh profile directory."""
    reason = missing_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright
    profile = tempfile.mkdtemp(prefix="minimx-chromium-")
    manager = sync_playwright().start()
    try:
        # launch_persistent_context takes the profile directory itself (Playwright refuses
        # a --user-data-dir argument): a new empty one per session.
        context = manager.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900}, timeout=60_000)
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(60_000)
    except Exception:
        manager.stop()
        shutil.rmtree(profile, ignore_errors=True)
        raise
    try:
        yield context
    finally:
        with contextlib.suppress(Exception):
            context.close()
        manager.stop()
        shutil.rmtree(profile, ignore_errors=True)


class PageLog:
    """What a page reported: console errors and warnings, uncaught exceptions, requests and
    failures."""

    def __init__(self, page):
        self.errors, self.warnings = [], []
        self.requests, self.failed, self.bad_status = [], [], []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("requestfailed",
                lambda request: self.failed.append(f"{request.url} ({request.failure})"))
        page.on("response", self._response)

    def _console(self, message):
        # "Failed to load resource" repeats a response checked (with its URL) in bad_status
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(f"console: {message.text}")
        elif message.type == "warning":
            self.warnings.append(f"console warning: {message.text}")

    def _response(self, response):
        if response.status >= 400:
            self.bad_status.append(f"{response.status} {response.url}")


@pytest.fixture
def new_page(browser):
    """Open pages that are closed after the test; each comes with a ``PageLog``."""
    pages = []

    def open_page():
        page = browser.new_page()
        pages.append(page)
        return page, PageLog(page)

    yield open_page
    for page in pages:
        with contextlib.suppress(Exception):
            page.close()


# -- JupyterLab ----------------------------------------------------------------------------

class LabServer:
    """A JupyterLab server started for the tests, on its own port, dirs and process group."""

    def __init__(self, root_dir, overrides):
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="minimx-lab-"))
        self.root_dir = pathlib.Path(root_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        settings = self.work / "app-settings"
        settings.mkdir()
        shutil.copy(overrides, settings / "overrides.json")
        self.env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(self.work / "runtime"),
                        JUPYTER_CONFIG_DIR=str(self.work / "config"),
                        JUPYTERLAB_SETTINGS_DIR=str(self.work / "user-settings"),
                        JUPYTERLAB_WORKSPACES_DIR=str(self.work / "workspaces"),
                        PYTHONPATH=os.pathsep.join(filter(None, [
                            str(ROOT), os.environ.get("PYTHONPATH")])))
        self.command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
                        "--ip=127.0.0.1", f"--port={self.port}", "--port-retries=0",
                        "--IdentityProvider.token=", "--ServerApp.password=",
                        f"--ServerApp.root_dir={self.root_dir}",
                        f"--LabApp.app_settings_dir={settings}"]
        self.log = self.work / "server.log"
        self.process = None

    def start(self, timeout=90):
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.command, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited ({self.process.returncode}):\n"
                                   + self.log_tail())
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(self.url + "/api/status", timeout=5) as reply:
                    if reply.status == 200:
                        return self
            time.sleep(0.5)
        raise RuntimeError(f"JupyterLab did not answer in {timeout} s:\n" + self.log_tail())

    def lab_url(self, path):
        """A fresh workspace each time, so no tab of an earlier test is restored."""
        return f"{self.url}/lab/workspaces/t{uuid.uuid4().hex[:12]}/tree/{path}"

    def log_tail(self, lines=40):
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, sig)     # the server and its kernels
                try:
                    self.process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def jupyterlab(browser, tmp_path_factory):
    """JupyterLab 4 on a free port, serving a copy of the widget demo notebooks (the copies
    keep the sources untouched by autosave); .md opens as a notebook (lab-overrides.json)."""
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip("jupyterlab is not installed (pip install -e '.[notebook]')")
    root = tmp_path_factory.mktemp("lab-root")
    for source in (ROOT / "notebooks" / "_widgets_demo").glob("*.md"):
        shutil.copy(source, root / source.name)
    yield from lab_serving(root, tmp_path_factory)


def lab_serving(root, tmp_path_factory, autosave_interval=None):
    """Start JupyterLab on ``root`` (the course's settings; autosave off, or every
    ``autosave_interval`` seconds), yield it, stop it: the body of a JupyterLab fixture."""
    overrides = tmp_path_factory.mktemp("lab-settings") / "overrides.json"
    settings = json.loads((ROOT / "tools" / "lab-overrides.json").read_text())
    docmanager = settings.setdefault("@jupyterlab/docmanager-extension:plugin", {})
    docmanager["autosave"] = autosave_interval is not None
    if autosave_interval is not None:
        docmanager["autosaveInterval"] = autosave_interval
    overrides.write_text(json.dumps(settings))
    server = LabServer(root, overrides)
    try:
        yield server.start()
    finally:
        server.stop()


# -- the built book ------------------------------------------------------------------------

BOOK_HTML = ROOT / "_build" / "html"


@pytest.fixture(scope="session")
def book_html(browser):
    """The built site's folder: ``$MINIMX_BOOK_HTML`` when set (scripts/test.sh sets it after
    building the book in the same run), otherwise built here with tools/build_book.py.
    The executed notebooks are in ``<folder>/../jupyter_execute``."""
    if os.environ.get("MINIMX_BOOK_FAILED"):
        pytest.fail(f"the book build of this run failed: {os.environ['MINIMX_BOOK_FAILED']} "
                    "(scripts/test.sh printed its end)", pytrace=False)
    given = os.environ.get("MINIMX_BOOK_HTML")
    if given:
        if not (pathlib.Path(given) / "index.html").exists():
            pytest.fail(f"MINIMX_BOOK_HTML={given} has no index.html")
        return pathlib.Path(given).resolve()
    if importlib.util.find_spec("jupyter_book") is None:
        pytest.skip("jupyter-book is not installed (pip install -e '.[notebook]')")
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book
    reason = build_book.missing_programs()
    if reason:
        pytest.skip(reason)
    try:
        result = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py")],
                                cwd=ROOT, capture_output=True, text=True, timeout=3000)
    except subprocess.TimeoutExpired:
        pytest.fail("the book build took more than 50 minutes")
    if result.returncode != 0:
        pytest.fail("tools/build_book.py failed:\n" + (result.stdout + result.stderr)[-6000:])
    return BOOK_HTML


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def book_server(book_html):
    """The built site served by http.server on a free 127.0.0.1 port."""
    handler = functools.partial(_QuietHandler, directory=str(book_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
